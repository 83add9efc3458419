import type { Plugin } from 'esbuild'
import type { ClientBuildOptions } from './client-build.mjs'

export function assetUrls(options: ClientBuildOptions): Plugin
export const highlightCoreAsEsm: Plugin
