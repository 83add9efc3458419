import { describe, expect, it } from 'vitest'
import { createClassifier, removeDotSegments } from '../../gateway/classify.js'

describe('classifier: root_path split (FluxLit table) and API match', () => {
  const mounted = createClassifier({ apiMountPath: '/api', rootPath: '/myapp' })
  const bare = createClassifier({ apiMountPath: '/api', rootPath: '' })

  it.each([
    ['/myapp/api/healthz', 'api', '/api/healthz', '/myapp/api/healthz'],
    ['/myapp/api/v1/items', 'api', '/api/v1/items', '/myapp/api/v1/items'],
    ['/myapp', 'ui', '/', '/myapp'],
    ['/prefix', 'ui', '/prefix', '/myapp/prefix'],
    ['/api/healthz', 'api', '/api/healthz', '/myapp/api/healthz'],
    ['/_stcore/stream', 'ui', '/_stcore/stream', '/myapp/_stcore/stream'],
  ])('%s under /myapp → %s', (path, kind, dispatchPath, uiPath) => {
    const c = mounted(path)
    expect(c).toMatchObject({ kind, dispatchPath })
    if (c.kind === 'ui') expect(c.uiPath).toBe(uiPath)
  })

  it('without a mount the path is used as-is', () => {
    expect(bare('/api/x')).toMatchObject({ kind: 'api', dispatchPath: '/api/x', apiPath: '/x' })
    expect(bare('/api')).toMatchObject({ kind: 'api', apiPath: '/' })
    expect(bare('/api/')).toMatchObject({ kind: 'api', apiPath: '/' })
    expect(bare('/apix')).toMatchObject({ kind: 'ui' })
    expect(bare('/API')).toMatchObject({ kind: 'ui' })
    expect(bare('/x?a=1&b=2')).toMatchObject({ kind: 'ui', uiPath: '/x', query: 'a=1&b=2' })
  })

  it.each([
    '/api/../secret',
    '/x/../api/users',
    '/api%2Fusers',
    '/api%2fusers',
    '/api/%2e%2e/x',
    '/api/%2E%2E/x',
    '/x/%2e%2e/api/users',
    '/api\\..\\x',
    '/x\\..\\api/users',
    '//api/users',
    '/x//../api/users',
    '/api%00',
    '/%E0%A4%A',
  ])('refuses %s (crosses the mount once decoded or normalised, or is malformed)', (path) => {
    expect(bare(path).kind).toBe('bad')
  })

  it('keeps encoded paths that stay on one side of the mount, resolving dot segments', () => {
    expect(bare('/api/files/a%2Fb')).toMatchObject({ kind: 'api', apiPath: '/files/a%2Fb' })
    expect(bare('/api/a/../b')).toMatchObject({ kind: 'api', apiPath: '/b' })
    expect(bare('/x/./y')).toMatchObject({ kind: 'ui', uiPath: '/x/y' })
    expect(bare('/caf%C3%A9')).toMatchObject({ kind: 'ui', uiPath: '/caf%C3%A9' })
  })

  it('refuses absolute-form targets', () => {
    expect(bare('http://evil/api').kind).toBe('bad')
  })

  it('removeDotSegments follows RFC 3986', () => {
    expect(removeDotSegments('/a/b/c/./../../g')).toBe('/a/g')
    expect(removeDotSegments('/../a')).toBe('/a')
    expect(removeDotSegments('/a/..')).toBe('/')
    expect(removeDotSegments('/a/.')).toBe('/a/')
  })
})
