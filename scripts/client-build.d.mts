import type { Plugin } from 'esbuild'
import type { ClientManifest } from '../src/ui/server/client-manifest.js'

export interface ClientEntry {
  name: string
  source: string
  format: 'esm' | 'iife'
}

export interface ClientBuildOptions {
  minify: boolean
  target: string[]
}

export function buildClient(options: {
  root: string
  outdir: string
  clientSrc: string
  entries: ClientEntry[]
  watch?: boolean
  plugins?: (options: ClientBuildOptions) => Plugin[]
}): Promise<ClientManifest | null>
