import { onRender, ready, setValue } from 'svc/component'
import './style.css'

/**
 * A star rating for svc pages: `args.max` stars and a `label`; clicking a star sends its number
 * to the page (`setValue`). After a rating it shows a thank-you note, so it grows, and svc/component
 * grows the iframe with it. Colours come from the page's theme (`--svc-*` variables).
 */
interface Args {
  max?: number
  label?: string
}

const root = document.getElementById('rating')!
const label = root.querySelector<HTMLElement>('.rating-label')!
const stars = root.querySelector<HTMLElement>('.stars')!
const thanks = root.querySelector<HTMLElement>('.thanks')!
const thanksTitle = root.querySelector<HTMLElement>('.thanks-title')!

let current = 0
let disabled = false

function draw(max: number): void {
  if (stars.childElementCount !== max) {
    stars.replaceChildren(
      ...Array.from({ length: max }, (_v, i) => {
        const star = document.createElement('button')
        star.type = 'button'
        star.className = 'star'
        star.textContent = '★'
        star.setAttribute('aria-label', `${i + 1} star${i === 0 ? '' : 's'}`)
        star.addEventListener('click', () => {
          if (disabled) return
          current = i + 1
          paint(max)
          setValue(current)
        })
        return star
      }),
    )
  }
  paint(max)
}

function paint(max: number): void {
  stars.querySelectorAll<HTMLButtonElement>('.star').forEach((star, i) => {
    star.classList.toggle('is-on', i < current)
    star.setAttribute('aria-pressed', String(i < current))
    star.disabled = disabled
  })
  thanks.hidden = current === 0
  thanksTitle.textContent = `Thanks! You gave ${current} of ${max}.`
}

onRender<Args>(({ args, value, disabled: off, theme }) => {
  const max = Math.max(1, Math.min(10, Math.round(args.max ?? 5)))
  label.textContent = args.label ?? 'Your rating'
  current = typeof value === 'number' ? value : 0
  disabled = off
  root.dataset.base = theme.base
  draw(max)
})
ready()
