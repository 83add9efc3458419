import type { ClientManifest } from '../src/ui/server/client-manifest.js'

export interface ClientEntry {
  name: string
  source: string
  format: 'esm' | 'iife'
}

export function buildClient(options: { root: string; outdir: string; clientSrc: string; entries: ClientEntry[]; watch?: boolean }): Promise<ClientManifest | null>
