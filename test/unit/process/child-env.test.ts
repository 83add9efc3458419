import { describe, expect, it } from 'vitest'
import { childEnv, parseChildEnv, TREE_ENV } from '../../../src/process/child-env.js'
import { isSvcError } from '../../../src/errors.js'

describe('the child environment contract', () => {
  it('what the supervisor writes, a child reads back', () => {
    const values = {
      app: 'src/app.ts:app',
      internalApiBase: 'http://127.0.0.1:8000/api',
      uiUpstream: 'http://127.0.0.1:9100',
      uiPort: 9100,
      uiHost: '127.0.0.1',
      uiListenFd: 4,
      rootPath: '/tools',
      devReload: true,
      devMode: true,
      workerId: '2',
      standby: true,
      treeId: 'abc.worker-3',
      compileCache: '/tmp/cc',
    }
    const written = childEnv(values)
    expect(written).toEqual({
      SVC_APP: 'src/app.ts:app',
      SVC_INTERNAL_API_BASE: 'http://127.0.0.1:8000/api',
      SVC_UI_UPSTREAM: 'http://127.0.0.1:9100',
      SVC_UI_PORT: '9100',
      SVC_UI_HOST: '127.0.0.1',
      SVC_UI_LISTEN_FD: '4',
      SVC_ROOT_PATH: '/tools',
      SVC_DEV_RELOAD: '1',
      SVC_DEV_MODE: '1',
      SVC_WORKER_ID: '2',
      SVC_WORKER_STANDBY: '1',
      [TREE_ENV]: 'abc.worker-3',
      NODE_COMPILE_CACHE: '/tmp/cc',
    })
    expect(parseChildEnv({ ...written, UNRELATED: 'x' })).toEqual(values)
  })

  it('writes only the fields given', () => {
    expect(childEnv({ uiUpstream: 'http://127.0.0.1:1' })).toEqual({ SVC_UI_UPSTREAM: 'http://127.0.0.1:1' })
    expect(childEnv({ treeId: undefined, devReload: false, devMode: false, standby: false })).toEqual({})
  })

  it('an empty environment (a child started by hand) gets the defaults', () => {
    expect(parseChildEnv({})).toEqual({
      app: 'app:app',
      internalApiBase: undefined,
      uiUpstream: '',
      uiPort: 0,
      uiHost: '127.0.0.1',
      uiListenFd: undefined,
      rootPath: '',
      devReload: false,
      devMode: false,
      workerId: undefined,
      standby: false,
      treeId: undefined,
      compileCache: undefined,
    })
    expect(parseChildEnv({ SVC_UI_HOST: '', SVC_DEV_RELOAD: 'yes' })).toMatchObject({ uiHost: '127.0.0.1', devReload: true })
  })

  it('a bad SVC_UI_PORT is SVC_ERR_UI_SIDECAR_START naming the value', () => {
    for (const bad of ['http', '-1', '70000', '1.5']) {
      let caught: unknown
      try {
        parseChildEnv({ SVC_UI_PORT: bad })
      } catch (err) {
        caught = err
      }
      expect(isSvcError(caught) && caught.code).toBe('SVC_ERR_UI_SIDECAR_START')
      expect((caught as Error).message).toContain(JSON.stringify(bad))
    }
  })

  it('a bad SVC_UI_LISTEN_FD is SVC_ERR_UI_SIDECAR_START naming it and the value', () => {
    for (const bad of ['four', '-4', '4.5']) {
      expect(() => parseChildEnv({ SVC_UI_PORT: '9100', SVC_UI_LISTEN_FD: bad })).toThrow(`SVC_UI_LISTEN_FD=${JSON.stringify(bad)} is not a file descriptor number`)
    }
  })
})
