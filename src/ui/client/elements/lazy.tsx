import type { FunctionComponent } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { useForm, useRuntime } from '../context.js'
import { safeUrl } from '../url.js'
import type { MountView, View } from '../lazy/view.js'
import type { ElementProps } from './types.js'

interface LazyOptions<P> {
  /** Pixels the box keeps while the chunk loads and draws (the element's own height when known). */
  minHeight?: (props: P) => number | null
  /** Draws nothing in the page's flow (an overlay): no box, so the element takes no space. */
  headless?: boolean
  /** Inside a form, values wait for its submit button like other widgets' (custom components). */
  formValue?: boolean
}

/**
 * An element drawn by a lazily loaded chunk (`lazy/*.ts`): the first node of that type imports
 * it, so `app.js` carries only this stub.
 */
export function lazyElement<P>(load: () => Promise<MountView<P>>, { minHeight = () => null, headless = false, formValue = false }: LazyOptions<P> = {}): FunctionComponent<ElementProps<P>> {
  let module: Promise<MountView<P>> | null = null
  return function LazyElement({ node, props }: ElementProps<P>) {
    const rt = useRuntime()
    const form = useForm()
    const host = useRef<HTMLDivElement>(null)
    const view = useRef<View<P> | null>(null)
    const latest = useRef(props)
    latest.current = props
    // null while loading and drawing, true once drawn, or the message of a failed load.
    const [state, setState] = useState<true | string | null>(null)

    useEffect(() => {
      let live = true
      // A failed import is retried by the next element that mounts (a network blip is not for good).
      module ??= load().catch((e: unknown) => {
        module = null
        throw e
      })
      const fail = (e: unknown) => {
        if (live) setState(e instanceof Error ? e.message : String(e))
      }
      module.then((mount) => {
        const el = headless ? document.createElement('div') : host.current
        if (!live || !el) return
        const sendValue = (value: unknown, trigger?: boolean) => (formValue && form ? form.set(node.id, value) : rt.sendWidget(node.id, value, trigger))
        const drawn = mount(el, latest.current, { basePath: rt.config.basePath, title: rt.config.title, mapStyle: rt.config.mapStyle, sendValue, upload: (f) => rt.upload(f), safeUrl })
        view.current = drawn.view
        drawn.ready.then(() => live && setState(true), fail)
      }, fail)
      return () => {
        live = false
        view.current?.destroy()
        view.current = null
      }
    }, [])

    useEffect(() => view.current?.update(props), [props])

    if (headless) return null
    const height = minHeight(props)
    const ready = state === true
    return (
      <div class={ready ? 'svc-lazy is-ready' : 'svc-lazy'} data-testid={node.type} style={ready || height === null ? undefined : { minHeight: `${height}px` }}>
        {typeof state === 'string' ? (
          <div class="svc-lazy-error" role="alert">
            {state}
          </div>
        ) : null}
        <div ref={host} />
      </div>
    )
  }
}
