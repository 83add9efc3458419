import { createReadStream, readFile } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { pipeline } from 'node:stream'

/**
 * Sends the body of a built client file. Those files are named by their content, so what is at a
 * path never changes while svc runs (a rebuild writes new names): a small one is read once and
 * kept, since opening and reading it per request cost a worker 5-8× the CPU of sending it (most
 * files a page loads are small once compressed: app.js and app.css brotli-encoded); a large one
 * (the chart chunk) is streamed from disk per request, where the transfer dominates. No descriptor
 * is shared between requests: a stream that is destroyed (the client went away) closes its own.
 */
// 128 KiB also keeps the plain app.js and app.css (90 and 48 kB), which clients that send no
// Accept-Encoding (curl, probes) get: streamed, the worker served them at 0.3× nginx's rate.
export const KEEP_MAX_BYTES = 128 * 1024

const kept = new Map<string, Buffer>()

export function sendFileBody(res: ServerResponse, path: string, size: number): void {
  const bytes = kept.get(path)
  if (bytes !== undefined) {
    res.end(bytes)
    return
  }
  if (size <= KEEP_MAX_BYTES) {
    readFile(path, (err, read) => {
      if (err) return void res.destroy(err)
      kept.set(path, read)
      res.end(read)
    })
    return
  }
  // The length told is the manifest's: a file cut short by a rebuild ends the answer short, visibly.
  pipeline(createReadStream(path, { start: 0, end: size - 1 }), res, () => {})
}
