import { AttributionControl, LngLatBounds, Map as MapLibreMap, NavigationControl, setWorkerUrl, type ExpressionSpecification, type GeoJSONSource } from 'maplibre-gl'
import workerHref from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url'
import libraryCssHref from 'maplibre-gl/dist/maplibre-gl.css?url'
import type { MapProps } from '../../wire/elements.js'
import { DEFAULT_MAP_STYLE_URL, mapStyles, type MapStyles } from '../../../settings/map-style.js'
import cssHref from './map.css?url'
import { loadStylesheet } from './stylesheet.js'
import { cssVar, onThemeChange, themeMode } from './theme-mode.js'
import { propsChanged, type MountView } from './view.js'

/**
 * `st.map`: points on a MapLibre GL basemap, in this lazily loaded chunk. MapLibre's worker is a
 * file of its own next to this chunk (same origin: a CSP needs no `blob:` for it). The basemap is
 * the light or dark style of the page config and follows the page's `data-theme`.
 */
setWorkerUrl(new URL(workerHref, import.meta.url).href)
const styles = Promise.all([loadStylesheet(new URL(libraryCssHref, import.meta.url).href), loadStylesheet(new URL(cssHref, import.meta.url).href)])

const SOURCE = 'svc-points'
const LAYER = 'svc-points'
/** Metres per pixel at zoom 0 on the equator, for MapLibre's 512-pixel tiles. */
const METRES_PER_PIXEL_Z0 = 40_075_016.686 / 512
/** Every point stays visible at any zoom: its radius in pixels is this plus its true radius. */
const MIN_RADIUS_PX = 3
const MAX_ZOOM = 24
const FIT = { padding: 40, maxZoom: 13, duration: 0 }

function pointsGeoJson(p: MapProps): GeoJSON.FeatureCollection<GeoJSON.Point> {
  return {
    type: 'FeatureCollection',
    features: p.lon.map((lon, i) => {
      const lat = p.lat[i]!
      const metres = Array.isArray(p.size) ? p.size[i]! : p.size
      const color = Array.isArray(p.color) ? p.color[i]! : null
      // Radius in pixels at zoom 0; the layer doubles it per zoom level.
      const r0 = metres / (METRES_PER_PIXEL_Z0 * Math.max(Math.cos((lat * Math.PI) / 180), 1e-6))
      return { type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: { r0, ...(color ? { c: color } : {}) } }
    }),
  }
}

function circleColor(p: MapProps): ExpressionSpecification | string {
  return Array.isArray(p.color) ? ['get', 'c'] : (p.color ?? cssVar('--svc-chart-1') ?? '#4f46e5')
}

function addPoints(map: MapLibreMap, p: MapProps): void {
  if (map.getSource(SOURCE)) return
  map.addSource(SOURCE, { type: 'geojson', data: pointsGeoJson(p) })
  map.addLayer({
    id: LAYER,
    type: 'circle',
    source: SOURCE,
    paint: {
      'circle-radius': ['interpolate', ['exponential', 2], ['zoom'], 0, ['+', MIN_RADIUS_PX, ['get', 'r0']], MAX_ZOOM, ['+', MIN_RADIUS_PX, ['*', ['get', 'r0'], 2 ** MAX_ZOOM]]],
      'circle-color': circleColor(p),
      'circle-opacity': 0.75,
      'circle-stroke-width': 1,
      'circle-stroke-color': 'rgba(255, 255, 255, 0.6)',
    },
  })
}

function bounds(p: MapProps): LngLatBounds | null {
  if (p.lon.length === 0) return null
  const b = new LngLatBounds()
  p.lon.forEach((lon, i) => b.extend([lon, p.lat[i]!]))
  return b
}

function place(map: MapLibreMap, p: MapProps): void {
  const b = bounds(p)
  if (p.zoom === null) {
    if (b) map.fitBounds(b, FIT)
  } else map.jumpTo({ zoom: p.zoom, ...(b ? { center: b.getCenter() } : {}) })
}

/** Style URLs of the page config; app paths (`/tiles/style.json`) get the root path and origin. */
function resolveStyles(config: MapStyles | null, basePath: string): MapStyles {
  const s = config ?? mapStyles(DEFAULT_MAP_STYLE_URL, '')
  const absolute = (url: string) => (url.startsWith('/') ? new URL(basePath + url, location.href).href : url)
  return { light: absolute(s.light), dark: absolute(s.dark) }
}

function sizeBox(el: HTMLElement, p: MapProps): void {
  el.style.height = `${p.height}px`
  el.style.width = p.useContainerWidth || p.width === null ? '' : `${p.width}px`
  el.dataset.points = String(p.lon.length)
  el.setAttribute('aria-label', `Map with ${p.lon.length} point${p.lon.length === 1 ? '' : 's'}`)
}

export const mount: MountView<MapProps> = (el, initial, host) => {
  const style = resolveStyles(host.mapStyle, host.basePath)
  let props = initial
  const changed = propsChanged(props)
  let map: MapLibreMap | null = null
  let destroyed = false
  const cleanups: (() => void)[] = []
  el.classList.add('svc-map')
  el.setAttribute('role', 'region')
  sizeBox(el, props)
  const canvasHost = el.appendChild(document.createElement('div'))
  canvasHost.className = 'svc-map-host'
  // Inline (CSSOM, CSP-safe): Plotly's bundle adds MapLibre rules of its own (`.maplibregl-map {
  // position: relative }`) after our stylesheet, which would collapse the box on pages with both.
  Object.assign(canvasHost.style, { position: 'absolute', inset: '0' })

  // MapLibre measures its container when it starts: the stylesheets that size it come first.
  const ready = styles.then(
    () =>
      new Promise<void>((resolve, reject) => {
        if (destroyed) return resolve()
        let m: MapLibreMap
        try {
          m = new MapLibreMap({
            container: canvasHost,
            style: themeMode() === 'dark' ? style.dark : style.light,
            attributionControl: false,
            cooperativeGestures: true,
            center: [0, 20],
            zoom: 1,
          })
        } catch (e) {
          // No WebGL (turned off, or no GPU and no software fallback): say so in the map's place.
          return reject(new Error(`Map error: ${e instanceof Error ? e.message : String(e)}`))
        }
        map = m
        m.addControl(new NavigationControl({ showCompass: false }), 'top-right')
        m.addControl(new AttributionControl({ compact: true }), 'bottom-right')
        // A new style (light/dark switch) drops our layer: it goes back on every style load.
        m.on('style.load', () => addPoints(m, props))
        place(m, props)
        m.once('load', () => resolve())
        m.on('error', (e) => {
          if (!m.isStyleLoaded()) reject(new Error(`Map error: ${e.error?.message ?? 'the basemap did not load'}`))
        })
        // A full load (no diff) fires `style.load`, which puts the points back in the new theme's colour.
        cleanups.push(onThemeChange((mode) => m.setStyle(mode === 'dark' ? style.dark : style.light, { diff: false })))
        // MapLibre follows window resizes only; a map in a column or tab follows its box.
        const observer = new ResizeObserver(() => m.resize())
        observer.observe(canvasHost)
        cleanups.push(() => observer.disconnect(), () => m.remove())
      }),
  )
  return {
    ready,
    view: {
      update(next) {
        if (!changed(next)) return
        props = next
        sizeBox(el, props)
        const source = map?.getSource<GeoJSONSource>(SOURCE)
        if (!map || !source) return
        // Fire and forget: maplibre applies the data on its worker and repaints; nothing here waits for it.
        void source.setData(pointsGeoJson(props))
        map.setPaintProperty(LAYER, 'circle-color', circleColor(props))
        place(map, props)
      },
      destroy() {
        destroyed = true
        for (const cleanup of cleanups.splice(0)) cleanup()
      },
    },
  }
}
