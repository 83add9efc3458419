import type { Plugin } from 'esbuild'
import type { ClientBuildOptions } from './client-build.mjs'

/** `stripFontFaces`: stylesheets (path endings) whose `@font-face` rules go, because their chunk registers the fonts itself. */
export function assetUrls(options: ClientBuildOptions, extra?: { stripFontFaces?: string[] }): Plugin
/** `?worker` imports: the module bundled on its own as a hashed asset, for `new Worker(url, { type: 'module' })`. */
export function workerUrls(options: ClientBuildOptions): Plugin
export const highlightCoreAsEsm: Plugin
/** Each importer gets its own copy of these modules (paths relative to the project) instead of a shared chunk. */
export function copyIntoEachChunk(files: string[]): Plugin
/** These packages are bundled once, from the project's node_modules, even where a dependency pins its own copy. */
export function singleCopy(names: string[]): Plugin
