import { useEffect, useRef } from 'preact/hooks'
import type { ComponentProps } from '../../elements.js'
import { useForm, useRuntime } from '../context.js'
import type { ComponentHost, HostInput } from '../component-lazy/component-host.js'
import type { ElementProps } from './types.js'

/**
 * `st.component`: a stub. The iframe, its protocol and the theme live in a lazy chunk, loaded by
 * the first component a session shows; it reads the latest props from `input` on every update.
 */
export function CustomComponent({ node, props }: ElementProps<ComponentProps>) {
  const rt = useRuntime()
  const form = useForm()
  const box = useRef<HTMLDivElement>(null)
  const input = useRef<HostInput>(null as never)
  const host = useRef<ComponentHost>()
  input.current = { props, basePath: rt.config.basePath, send: (v) => (form ? form.set(node.id, v) : rt.sendWidget(node.id, v)) }
  useEffect(() => {
    let gone = false
    void import('../component-lazy/component-host.js').then((m) => {
      if (!gone) host.current = m.mountComponent(box.current!, input)
    })
    return () => {
      gone = true
      host.current?.destroy()
    }
  }, [])
  useEffect(() => host.current?.update())
  return <div ref={box} data-testid="component" style={{ minHeight: `${props.height ?? 150}px` }} />
}
