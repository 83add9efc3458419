import { useEffect, useRef, useState } from 'preact/hooks'
import type { ComponentProps } from '../../elements.js'
import { useForm, useRuntime } from '../context.js'
import type { ComponentHost, HostProps } from '../component-lazy/component-host.js'
import type { ElementProps } from './types.js'

/** `st.component`: the iframe and its protocol live in a lazy chunk, loaded by the first component of a session. */
export function CustomComponent({ node, props }: ElementProps<ComponentProps>) {
  const rt = useRuntime()
  const form = useForm()
  const box = useRef<HTMLDivElement>(null)
  const host = useRef<ComponentHost | null>(null)
  const [mounted, setMounted] = useState(false)
  // An app path gets the root path; a dev server URL stays as it is.
  const hostProps: HostProps = { ...props, src: props.src.startsWith('/') ? rt.config.basePath + props.src : props.src }
  const latest = useRef(hostProps)
  latest.current = hostProps
  const send = useRef((value: unknown) => (form ? form.set(node.id, value) : rt.sendWidget(node.id, value)))
  send.current = (value) => (form ? form.set(node.id, value) : rt.sendWidget(node.id, value))

  useEffect(() => {
    let gone = false
    void import('../component-lazy/component-host.js').then((m) => {
      if (gone || !box.current) return
      host.current = m.mountComponent(box.current, latest.current, (v) => send.current(v))
      setMounted(true)
    })
    return () => {
      gone = true
      host.current?.destroy()
      host.current = null
    }
  }, [])
  useEffect(() => host.current?.update(hostProps))

  return <div ref={box} class="svc-component" data-testid="component" data-component={props.name} style={mounted ? undefined : { minHeight: `${props.height ?? 150}px` }} />
}
