/** The page path of a browser path under `basePath` (`/tools/reports` → `/reports`). */
export function stripBase(path: string, basePath: string): string {
  if (basePath === '') return path || '/'
  if (path === basePath) return '/'
  return path.startsWith(basePath + '/') ? path.slice(basePath.length) : path || '/'
}
