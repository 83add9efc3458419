import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { VegaLiteChartProps } from '../../elements.js'
import type { ElementProps } from './types.js'

/**
 * Every chart element (the four builders and `vegaLiteChart`). Vega, Vega-Lite and vega-embed are in a
 * separate chunk loaded by the dynamic import below, so pages without charts never fetch them.
 */

type Config = Record<string, unknown>

const PALETTE_SIZE = 10

/** A Vega config from the page theme's CSS custom properties, read at render time. */
function themeConfig(): Config {
  const style = getComputedStyle(document.documentElement)
  const css = (name: string): string | undefined => style.getPropertyValue(name).trim() || undefined
  const palette = Array.from({ length: PALETTE_SIZE }, (_v, i) => css(`--svc-chart-${i + 1}`)).filter((c): c is string => c !== undefined)
  const muted = css('--svc-text-muted')
  const grid = css('--svc-border')
  const axis = { labelColor: muted, titleColor: muted, gridColor: grid, domainColor: css('--svc-border-strong'), tickColor: grid, labelFontSize: 11, titleFontSize: 12, titleFontWeight: 500, labelPadding: 6 }
  return {
    background: 'transparent',
    font: css('--svc-font'),
    view: { stroke: null },
    axis,
    axisX: { grid: false, labelAngle: 0, labelOverlap: true },
    legend: { labelColor: muted, titleColor: muted, labelFontSize: 12, symbolType: 'circle', symbolOpacity: 1 },
    title: { color: css('--svc-text') },
    ...(palette.length ? { range: { category: palette }, mark: { color: palette[0] } } : {}),
    rule: { color: css('--svc-text-faint') },
  }
}

/** Increments when `data-theme` on <html> changes, so charts re-read the theme's colours. */
function useThemeVersion(active: boolean): number {
  const [version, setVersion] = useState(0)
  useEffect(() => {
    if (!active) return
    const observer = new MutationObserver(() => setVersion((v) => v + 1))
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
    return () => observer.disconnect()
  }, [active])
  return version
}

export function VegaChart({ node, props }: ElementProps<VegaLiteChartProps>) {
  const host = useRef<HTMLDivElement>(null)
  const [error, setError] = useState<string | null>(null)
  const [ready, setReady] = useState(false)
  const themeVersion = useThemeVersion(props.theme === 'svc')
  // Reruns resend equal props as new objects; only a changed spec re-renders the chart.
  const signature = useMemo(() => JSON.stringify(props), [props])
  const height = typeof props.spec.height === 'number' ? props.spec.height : null

  useEffect(() => {
    const el = host.current
    if (!el) return
    let cancelled = false
    let finalize: (() => void) | null = null
    const spec = { ...props.spec }
    if (props.useContainerWidth && ('mark' in spec || 'layer' in spec)) {
      spec.width = 'container'
      spec.autosize = { type: 'fit-x', contains: 'padding' }
    }
    const config = props.theme === 'svc' ? themeConfig() : undefined
    // Render into a fresh, hidden target and swap it in when done: a re-render never flashes empty
    // and never shows the old and the new chart together.
    const target = document.createElement('div')
    target.className = 'svc-vega-target is-pending'
    el.appendChild(target)
    import('../charts-lazy/render.js')
      .then((m) => m.renderVegaLite(target, spec, config))
      .then((done) => {
        if (cancelled) return done()
        finalize = done
        for (const child of [...el.children]) if (child !== target) child.remove()
        target.classList.remove('is-pending')
        setError(null)
        setReady(true)
      })
      .catch((e: unknown) => {
        target.remove()
        if (!cancelled) setError(e instanceof Error ? e.message : String(e))
      })
    return () => {
      cancelled = true
      finalize?.()
    }
  }, [signature, themeVersion])

  return (
    <div class={ready ? 'svc-vega' : 'svc-vega is-loading'} data-testid={node.type} style={!ready && height !== null ? { minHeight: `${height + 40}px` } : undefined}>
      {error !== null ? (
        <div class="svc-vega-error" role="alert">
          Chart error: {error}
        </div>
      ) : null}
      <div class="svc-vega-host" ref={host} />
    </div>
  )
}
