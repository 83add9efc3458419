import { describe, expect, it } from 'vitest'
import {
  REDACTED,
  createQueryRedactor,
  redactAuthorization,
  redactHeaders,
  redactQuery,
  redactUrl,
} from '../../../src/logging/redact.js'

describe('redactQuery', () => {
  it('redacts svc_sid and auth_code values, keeps other pairs byte for byte', () => {
    expect(redactQuery('svc_sid=abc&x=1%202&auth_code=zz')).toBe(`svc_sid=${REDACTED}&x=1%202&auth_code=${REDACTED}`)
  })

  it('compares keys case-insensitively and after percent/plus decoding', () => {
    expect(redactQuery('SVC_SID=a&svc%5Fsid=b&Auth_Code=c')).toBe(`SVC_SID=${REDACTED}&svc%5Fsid=${REDACTED}&Auth_Code=${REDACTED}`)
  })

  it('redacts the url_session_query_param key given as extra key', () => {
    expect(redactQuery('sess=s3cr3t&page=2', ['sess'])).toBe(`sess=${REDACTED}&page=2`)
    expect(redactQuery('sess=s3cr3t&page=2')).toBe('sess=s3cr3t&page=2')
  })

  it('keeps empty values empty and leaves keys without "=" alone', () => {
    expect(redactQuery('svc_sid=&x=1')).toBe('svc_sid=&x=1')
    expect(redactQuery('svc_sid&x=1')).toBe('svc_sid&x=1')
    expect(redactQuery('')).toBe('')
  })

  it('redacts every repetition of a key and survives malformed percent escapes', () => {
    expect(redactQuery('auth_code=1&auth_code=2&%zz=3')).toBe(`auth_code=${REDACTED}&auth_code=${REDACTED}&%zz=3`)
  })

  it('returns an unrelated query unchanged (same string)', () => {
    const q = 'page=2&sort=name'
    expect(createQueryRedactor(['sess'])(q)).toBe(q)
  })
})

describe('redactUrl', () => {
  it('redacts only the query part', () => {
    expect(redactUrl('/api/x?svc_sid=1&a=b')).toBe(`/api/x?svc_sid=${REDACTED}&a=b`)
    expect(redactUrl('/api/x')).toBe('/api/x')
  })
})

describe('redactAuthorization', () => {
  it('keeps the scheme, drops the credential', () => {
    expect(redactAuthorization('Bearer eyJhbGciOi.abc.def')).toBe(`Bearer ${REDACTED}`)
    expect(redactAuthorization('Basic dXNlcjpwYXNz')).toBe(`Basic ${REDACTED}`)
    expect(redactAuthorization('rawtoken')).toBe(REDACTED)
    expect(redactAuthorization('   ')).toBe('')
    expect(redactAuthorization(undefined)).toBe('')
  })
})

describe('redactHeaders', () => {
  it('redacts credential headers in a record, case-insensitively', () => {
    const out = redactHeaders({
      Authorization: 'Bearer tok',
      cookie: 'svc_sid=1',
      'Set-Cookie': ['a=1', 'b=2'],
      'Proxy-Authorization': 'Basic xx',
      'x-request-id': 'r1',
      'content-length': 5 as unknown as string,
    })
    expect(out).toEqual({
      Authorization: `Bearer ${REDACTED}`,
      cookie: REDACTED,
      'Set-Cookie': REDACTED,
      'Proxy-Authorization': `Basic ${REDACTED}`,
      'x-request-id': 'r1',
      'content-length': '5',
    })
  })

  it('accepts a Headers object and [name, value] pairs', () => {
    const h = new Headers({ authorization: 'Bearer t', accept: 'text/html' })
    expect(redactHeaders(h)).toEqual({ authorization: `Bearer ${REDACTED}`, accept: 'text/html' })
    expect(redactHeaders([['Cookie', 'a=b']])).toEqual({ Cookie: REDACTED })
  })
})
