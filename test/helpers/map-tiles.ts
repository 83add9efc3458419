import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { crc32, deflateSync } from 'node:zlib'

/**
 * A local basemap for `st.map` tests (no network): MapLibre style JSON for light and dark, each a
 * raster source whose 256-pixel PNG tiles (a paper colour with a grid) this server draws. Answers
 * carry `Access-Control-Allow-Origin: *` like a public tile server, since the page is on another
 * origin. Counts the tiles served, so a test can tell that the basemap was really drawn from here.
 */
export interface MapTileServer {
  origin: string
  styleUrl: (mode: 'light' | 'dark') => string
  /** Tiles served so far, by mode. */
  tiles: { light: number; dark: number }
  close(): Promise<void>
}

const COLORS = {
  light: { paper: [242, 239, 233], line: [214, 208, 198], water: [200, 221, 240] },
  dark: { paper: [30, 34, 44], line: [52, 58, 72], water: [24, 44, 66] },
} as const

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

/** A 256×256 RGB PNG: paper, a grid every 32 pixels, and a band of "water" that differs per tile. */
export function tilePng(mode: 'light' | 'dark', x: number, y: number): Buffer {
  const size = 256
  const c = COLORS[mode]
  const rows: Buffer[] = []
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 3)
    for (let px = 0; px < size; px++) {
      const water = (px + py + (x * 37 + y * 53) * 8) % 512 < 90
      const line = px % 32 === 0 || py % 32 === 0
      const rgb = line ? c.line : water ? c.water : c.paper
      row.set(rgb, 1 + px * 3)
    }
    rows.push(row)
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(size, 0)
  ihdr.writeUInt32BE(size, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // truecolour
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))])
}

function style(origin: string, mode: 'light' | 'dark'): object {
  return {
    version: 8,
    name: `svc test ${mode}`,
    sources: { base: { type: 'raster', tiles: [`${origin}/tiles/${mode}/{z}/{x}/{y}.png`], tileSize: 256, maxzoom: 19, attribution: `svc test tiles (${mode})` } },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': mode === 'light' ? '#f2efe9' : '#1e222c' } },
      { id: 'base', type: 'raster', source: 'base' },
    ],
  }
}

export async function startMapTileServer(): Promise<MapTileServer> {
  const tiles = { light: 0, dark: 0 }
  let origin = ''
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    const cors = { 'access-control-allow-origin': '*' }
    const styleMatch = /^\/(light|dark)\.json$/.exec(path)
    if (styleMatch) {
      res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(style(origin, styleMatch[1] as 'light' | 'dark')))
      return
    }
    const tile = /^\/tiles\/(light|dark)\/(\d+)\/(\d+)\/(\d+)\.png$/.exec(path)
    if (tile) {
      const mode = tile[1] as 'light' | 'dark'
      tiles[mode]++
      res.writeHead(200, { ...cors, 'content-type': 'image/png' }).end(tilePng(mode, Number(tile[3]), Number(tile[4])))
      return
    }
    res.writeHead(404, cors).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    styleUrl: (mode) => `${origin}/${mode}.json`,
    tiles,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
