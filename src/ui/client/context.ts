import { createContext } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import type { Runtime, ViewState } from './runtime.js'

export const RuntimeContext = createContext<Runtime | null>(null)

export function useRuntime(): Runtime {
  const rt = useContext(RuntimeContext)
  if (!rt) throw new Error('svc client: RuntimeContext is missing')
  return rt
}

export function useViewState(rt: Runtime): ViewState {
  const [state, setState] = useState(rt.state)
  useEffect(() => {
    setState(rt.state)
    return rt.subscribe(() => setState(rt.state))
  }, [rt])
  return state
}

/**
 * Inside `form`, widgets report values here instead of sending them; the submit button
 * sends all of them at once (`form_submit`).
 */
export interface FormScope {
  formId: string
  set(id: string, value: unknown): void
  /** The server overrode this widget: its unsubmitted value is not sent. */
  forget(id: string): void
  /** Submit: the collected values plus the submit button's own trigger. */
  submit(buttonId: string | null): void
  /** Bumped after each submit so widgets with `clearOnSubmit` reset. */
  generation: number
}

export const FormContext = createContext<FormScope | null>(null)

export function useForm(): FormScope | null {
  return useContext(FormContext)
}
