/** `import href from 'file.css?url'`: the file's path next to the importing chunk (scripts/build-client.mjs). */
declare module '*?url' {
  const href: string
  export default href
}
