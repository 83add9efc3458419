/**
 * Dispatch: which hop serves a request. Pure; built once per gateway with the prefixes
 * precomputed. The mount is an auth boundary, so a path whose decoded or dot-resolved form lands
 * on the other side of it than its raw form is refused (400), never guessed.
 */
export type Dispatch = 'api' | 'ui'

export type Classified =
  | {
      kind: Dispatch
      /** Path after the root_path split (FluxLit's "dispatch path"). */
      dispatchPath: string
      /** For `api`: the path relative to the mount, as the inner Fastify app routes it. */
      apiPath: string
      /** For `ui`: the full path sent to the sidecar (root_path included). */
      uiPath: string
      /** Raw query string without `?` ('' when none). */
      query: string
    }
  | { kind: 'bad'; reason: string }

export interface ClassifierOptions {
  apiMountPath: string
  rootPath: string
}

/** Resolve `.` and `..` segments (RFC 3986 §5.2.4) on a path that starts with `/`. */
export function removeDotSegments(path: string): string {
  const out: string[] = []
  const segments = path.split('/')
  for (let i = 1; i < segments.length; i++) {
    const s = segments[i]!
    if (s === '.') {
      if (i === segments.length - 1) out.push('')
    } else if (s === '..') {
      out.pop()
      if (i === segments.length - 1) out.push('')
    } else {
      out.push(s)
    }
  }
  return '/' + out.join('/')
}

const SUSPICIOUS = /%|\/\.|\\|\/\//

export function createClassifier(options: ClassifierOptions): (rawUrl: string) => Classified {
  const mount = options.apiMountPath
  const mountSlash = mount + '/'
  const root = options.rootPath
  const rootSlash = root + '/'

  const split = (path: string): { dispatchPath: string; uiPath: string } => {
    if (root === '') return { dispatchPath: path, uiPath: path }
    if (path === root) return { dispatchPath: '/', uiPath: path }
    if (path.startsWith(rootSlash)) return { dispatchPath: path.slice(root.length), uiPath: path }
    return { dispatchPath: path, uiPath: root + path }
  }
  const isApi = (dispatchPath: string): boolean => dispatchPath === mount || dispatchPath.startsWith(mountSlash)
  const classOf = (path: string): Dispatch => (isApi(split(path).dispatchPath) ? 'api' : 'ui')

  return (rawUrl) => {
    const q = rawUrl.indexOf('?')
    let path = q === -1 ? rawUrl : rawUrl.slice(0, q)
    const query = q === -1 ? '' : rawUrl.slice(q + 1)
    if (!path.startsWith('/')) {
      // Absolute-form (`GET http://host/x`) and asterisk-form targets are not ours to proxy.
      return { kind: 'bad', reason: 'request target must be a path starting with "/"' }
    }
    if (SUSPICIOUS.test(path)) {
      let decoded: string
      try {
        decoded = decodeURIComponent(path)
      } catch {
        return { kind: 'bad', reason: 'malformed percent-encoding in path' }
      }
      if (decoded.includes('\0')) return { kind: 'bad', reason: 'NUL byte in path' }
      const resolved = removeDotSegments(path)
      const expected = classOf(path)
      const variants = [
        resolved,
        removeDotSegments(decoded),
        decoded.replace(/\\/g, '/'),
        removeDotSegments(decoded.replace(/\\/g, '/')),
        removeDotSegments(decoded.replace(/\\/g, '/').replace(/\/{2,}/g, '/')),
      ]
      for (const v of variants) {
        if (classOf(v) !== expected) {
          return { kind: 'bad', reason: 'path crosses the API mount once decoded or normalised' }
        }
      }
      path = resolved
    }
    const { dispatchPath, uiPath } = split(path)
    const kind: Dispatch = isApi(dispatchPath) ? 'api' : 'ui'
    const apiPath = kind === 'api' ? dispatchPath.slice(mount.length) || '/' : ''
    return { kind, dispatchPath, apiPath, uiPath, query }
  }
}
