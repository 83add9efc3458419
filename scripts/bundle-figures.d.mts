import type { ClientManifest } from '../src/ui/server/client-manifest.js'

export const START: string
export const END: string
export function bundleFiguresMarkdown(manifest: ClientManifest): string
export function withBundleFigures(doc: string, table: string): string
