import { describe, expect, it } from 'vitest'
import {
  DEFAULT_REDACTED_QUERY_KEYS,
  REDACTED,
  createQueryRedactor,
  redactAuthorization,
  redactHeaders,
  redactQuery,
  redactArgv,
  redactCredentialsInText,
  redactUrl,
  redactUrlsInText,
} from '../../../src/logging/redact.js'

const R = REDACTED

describe('default query credential list', () => {
  const required = [
    'access_token', 'token', 'code', 'state', 'id_token', 'refresh_token', 'password', 'secret',
    'api_key', 'apikey', 'key', 'signature', 'sig', 'svc_sid', 'auth_code',
  ]

  it.each(required)('redacts %s (lower, upper and mixed case) and keeps the other pairs', (name) => {
    expect(DEFAULT_REDACTED_QUERY_KEYS).toContain(name)
    const mixed = [...name].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')
    for (const n of [name, name.toUpperCase(), mixed]) {
      expect(redactQuery(`page=2&${n}=v4lue&x=1`)).toBe(`page=2&${n}=${R}&x=1`)
    }
  })

  it('redacts names whose last word is a credential word, in every spelling', () => {
    for (const n of [
      'client_secret', 'X-Amz-Signature', 'x-amz-security-token', 'X-Amz-Credential', 'X-Goog-Signature',
      'session_token', 'apiKey', 'accessToken', 'private-key', 'subscription-key', 'user.password', 'csrf token',
    ]) {
      expect(redactQuery(`${n}=s3cr3t&a=b`), n).toBe(`${n}=${R}&a=b`)
    }
  })

  it('keeps names that only contain a word, and code/state compounds', () => {
    const q = 'monkey=1&keyword=2&tokens=3&error_code=4&us_state=5&statement=6&codec=7&signal=8'
    expect(redactQuery(q)).toBe(q)
  })

  it('ignores an array suffix on the name', () => {
    expect(redactQuery('token[]=a&key[0]=b&x[]=c')).toBe(`token[]=${R}&key[0]=${R}&x[]=c`)
  })
})

describe('redactQuery edge cases', () => {
  it('redacts every repetition of a key', () => {
    expect(redactQuery('code=1&code=2&Code=3&x=code')).toBe(`code=${R}&code=${R}&Code=${R}&x=code`)
  })

  it('decodes percent-encoded and plus-encoded names', () => {
    expect(redactQuery('acc%65ss_token=abc&%73tate=x&access%5Ftoken=y')).toBe(`acc%65ss_token=${R}&%73tate=${R}&access%5Ftoken=${R}`)
    expect(redactQuery('access+token=abc&ACCESS%20TOKEN=d')).toBe(`access+token=${R}&ACCESS%20TOKEN=${R}`)
  })

  it('replaces values containing + and %20 whole', () => {
    expect(redactQuery('password=a+b%20c&x=a+b')).toBe(`password=${R}&x=a+b`)
  })

  it('survives malformed percent-encoding in names and values', () => {
    expect(redactQuery('%zz=1&token=%&code=%E0%A4%A&acc%65ss_token%zz=2')).toBe(`%zz=1&token=${R}&code=${R}&acc%65ss_token%zz=2`)
    expect(redactQuery('%=1&%%=2')).toBe('%=1&%%=2')
  })

  it('treats # and ? as pair separators so fragments cannot hide a credential', () => {
    expect(redactQuery('x=1#access_token=abc&state=s')).toBe(`x=1#access_token=${R}&state=${R}`)
    expect(redactQuery('code=abc#frag')).toBe(`code=${R}#frag`)
    expect(redactQuery('next=/a?token=t')).toBe(`next=/a?token=${R}`)
  })

  it('finds credentials after ; and cuts the value at the next & # ?', () => {
    expect(redactQuery('x=1;token=abc&y=2')).toBe(`x=1;token=${R}&y=2`)
    expect(redactQuery('code=a;b&y=2')).toBe(`code=${R}&y=2`)
    expect(redactQuery('x=a;b')).toBe('x=a;b')
  })

  it('extends, never shrinks, the list with extra keys', () => {
    const r = createQueryRedactor(['OTP', ' magic_link '])
    expect(r('otp=1&Magic_Link=2&code=3&z=4')).toBe(`otp=${R}&Magic_Link=${R}&code=${R}&z=4`)
    expect(createQueryRedactor([''])('code=1')).toBe(`code=${R}`)
  })
})

describe('redactUrl with fragments', () => {
  it('redacts a fragment on a path without query', () => {
    expect(redactUrl('/cb#access_token=abc&token_type=bearer')).toBe(`/cb#access_token=${R}&token_type=bearer`)
    expect(redactUrl('/cb#section')).toBe('/cb#section')
  })

  it('redacts query and fragment of an absolute URL', () => {
    expect(redactUrl('http://127.0.0.1:8501/x?code=abc&state=xyz#id_token=t')).toBe(
      `http://127.0.0.1:8501/x?code=${R}&state=${R}#id_token=${R}`,
    )
  })
})

describe('redactUrlsInText', () => {
  it('redacts each quoted URL query and leaves prose alone', () => {
    const r = createQueryRedactor()
    expect(redactUrlsInText('error for http://h/x?code=abc&a=1: ECONNREFUSED', r)).toBe(`error for http://h/x?code=${R}&a=1: ECONNREFUSED`)
    expect(redactUrlsInText('is it up? yes', r)).toBe('is it up? yes')
    expect(redactUrlsInText('"/a?token=1" and /b?key=2', r)).toBe(`"/a?token=${R}" and /b?key=${R}`)
  })
})

describe('redactCredentialsInText', () => {
  it('redacts URL passwords, Bearer and Basic credentials, credential pairs and URL queries in free text', () => {
    expect(redactCredentialsInText('connect failed: postgres://user:hunter2@db/x')).toBe(`connect failed: postgres://user:${R}@db/x`)
    expect(redactCredentialsInText('redis://:pw123@host:6379/0 and redis://host:6379')).toBe(`redis://:${R}@host:6379/0 and redis://host:6379`)
    expect(redactCredentialsInText('Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-1')).toBe(`Authorization: Bearer ${R}`)
    expect(redactCredentialsInText('sent Basic dXNlcjpwdw== but basic settings differ')).toBe(`sent Basic ${R} but basic settings differ`)
    expect(redactCredentialsInText('call with api_key=abc123 and page=2; apiKey=zzz, token=t0k&x=1')).toBe(`call with api_key=${R} and page=2; apiKey=${R}, token=${R}&x=1`)
    expect(redactCredentialsInText('GET https://x.test/cb?code=abc&state=s1 failed, exit code=1 state=open')).toBe(`GET https://x.test/cb?code=${R}&state=${R} failed, exit code=1 state=open`)
    expect(redactCredentialsInText('sess=abc', createQueryRedactor(['sess']))).toBe(`sess=${R}`)
  })

  it('keeps text without credentials byte for byte', () => {
    for (const text of ['at loadOrders (/srv/app/db.ts:12:5)', 'Key (id)=(42) already exists', 'a=b c=d', 'http://host/path', `password=${R} already`]) {
      expect(redactCredentialsInText(text)).toBe(text)
    }
  })

  it('skips finding pairs only where the redactor says no credential name can occur', () => {
    const redactor = createQueryRedactor(['sess'])
    expect(redactor.mayHoldCredential('gateway GET /items request_id=5f0c-1c1e status=200')).toBe(false)
    for (const text of ['apiKey=1', 'X-AMZ-SIGNATURE=1', 'sess=1', 'a%5Fkey=1', 'a+b=1']) expect(redactor.mayHoldCredential(text)).toBe(true)
    // A caller's own redactor (a plain function) is asked about every pair, as before.
    expect(redactCredentialsInText('request_id=1 b=2', (q) => (q.startsWith('b=') ? 'b=x' : q))).toBe(`request_id=1 b=${R}`)
    expect(redactCredentialsInText('x=1 SESS=abc', redactor)).toBe(`x=1 SESS=${R}`)
  })
})

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

describe('redactArgv', () => {
  it('redacts the values of credential flags, in both spellings', () => {
    expect(redactArgv(['streamlit', 'run', 'app.py', '--server.cookieSecret', 's3cr3t', '--api-key=abc', '-token', 't0k', '--port', '8501'])).toEqual([
      'streamlit', 'run', 'app.py', '--server.cookieSecret', R, `--api-key=${R}`, '-token', R, '--port', '8501',
    ])
  })

  it('keeps flags that only contain a credential word, a flag followed by a flag, and empty values', () => {
    expect(redactArgv(['--keyfile', 'k.pem', '--token', '--verbose', '--password=', 'key'])).toEqual(['--keyfile', 'k.pem', '--token', '--verbose', '--password=', 'key'])
  })

  it('redacts URL passwords and sensitive query values inside any argument', () => {
    expect(redactArgv(['--redis', 'redis://app:pw@db:6379/0', 'http://x/cb?code=abc&x=1'])).toEqual(['--redis', `redis://app:${R}@db:6379/0`, `http://x/cb?code=${R}&x=1`])
  })
})
