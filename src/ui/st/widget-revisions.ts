/**
 * What the browser shows must be what the server holds. A control shows what the user made of it
 * until a render says otherwise, and a render that repeats the last one says nothing: so whenever
 * the server's value for a widget departs from what its control may show (the page set or reset
 * it, a form was cleared, a value was refused or fitted to new data), the widget's revision goes
 * up. It travels as `rev` in the widget's props, and a control whose revision changed shows the
 * server's value again, dropping what the user typed or left unsubmitted before it.
 */
export class WidgetRevisions {
  /** Per widget: how often the server overrode what its control may show (absent: never). */
  readonly #revisions = new Map<string, number>()
  /** Widgets whose revision went up since the tree was last stamped (`stamp`), with why a value was refused (or null). */
  readonly #unstamped = new Map<string, string | null>()
  /** `st.sessionState` keys the page set or deleted since their widget was last drawn. */
  readonly #writtenKeys = new Set<string>()

  /** The widget's revision: 0 until the server first overrides what its control shows. */
  of(id: string): number {
    return this.#revisions.get(id) ?? 0
  }

  /**
   * The server's value departs from what the widget's control may show: the control must follow.
   * `refused`: why the browser's value was refused, shown by controls that explain (the data editor).
   */
  bump(id: string, refused: string | null = null): void {
    this.#revisions.set(id, this.of(id) + 1)
    this.#unstamped.set(id, refused)
  }

  /** The widget is gone; drawn again, it is a new control. */
  forget(id: string): void {
    this.#revisions.delete(id)
    this.#unstamped.delete(id)
  }

  /**
   * The page set or deleted `st.sessionState[key]` (in a callback, or above the widget): the
   * widget shows the page's value when next drawn, even where it equals what the server held, as
   * the browser may show something else (unsubmitted form edits, a draft).
   */
  noteKeyWrite(key: string): void {
    this.#writtenKeys.add(key)
  }

  /** Whether the page wrote `key` since its widget was last drawn; the note is used up. */
  takeKeyWrite(key: string): boolean {
    return this.#writtenKeys.delete(key)
  }

  /** After a completed run: writes to keys of widgets it did not draw mean nothing any more. */
  clearKeyWrites(): void {
    this.#writtenKeys.clear()
  }

  /** Whether revisions went up since the last `stamp` (nodes drawn before then carry old ones). */
  get hasUnstamped(): boolean {
    return this.#unstamped.size > 0
  }

  /** Write current revisions (and refusal reasons) into the props of the widget nodes in `nodes` whose revision went up. */
  stamp(nodes: readonly StampedNode[]): void {
    if (this.#unstamped.size === 0) return
    const walk = (list: readonly StampedNode[]): void => {
      for (const n of list) {
        if (this.#unstamped.has(n.id)) {
          const props = n.props as { rev?: number; refused?: string }
          props.rev = this.of(n.id)
          const refused = this.#unstamped.get(n.id)
          if (refused) props.refused = refused
          else delete props.refused
        }
        if (n.children) walk(n.children)
      }
    }
    walk(nodes)
    this.#unstamped.clear()
  }
}

interface StampedNode {
  readonly id: string
  readonly props: object
  readonly children?: readonly StampedNode[]
}
