/**
 * A frozen object whose members are read from `read` each time they are read: a view of another
 * object's state (private fields included) that stays current, without exposing that object.
 */
export function liveView<T extends object>(read: { readonly [K in keyof T]-?: () => T[K] }): T {
  const view = {} as T
  for (const [key, get] of Object.entries(read) as [string, () => unknown][]) {
    Object.defineProperty(view, key, { get, enumerable: true })
  }
  return Object.freeze(view)
}
