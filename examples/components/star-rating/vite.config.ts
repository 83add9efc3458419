import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/**
 * Builds the star rating into ./dist, which an svc app serves with
 * declareComponent('star-rating', { path: new URL('./dist', import.meta.url) }).
 * `base: './'`: svc serves the files under a versioned path, so every asset URL is relative.
 * In a project of your own, `svc/component` comes from node_modules; here it is this repo's source.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  resolve: { alias: { 'svc/component': fileURLToPath(new URL('../../../src/component/index.ts', import.meta.url)) } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2020', modulePreload: { polyfill: false } },
})
