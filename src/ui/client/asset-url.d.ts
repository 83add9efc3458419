/** `import href from 'file.css?url'`: the file's path next to the importing chunk (scripts/build-client.mjs). */
declare module '*?url' {
  const href: string
  export default href
}
/** `import href from './worker.ts?worker'`: the module bundled as a worker script next to the importing chunk (scripts/client-plugins.mjs). */
declare module '*?worker' {
  const href: string
  export default href
}
