// Bad input for the operations routes, and for routes and methods that do not exist, including
// requests Node's HTTP parser refuses before any route sees them.
import { rawRequest } from './raw-http.js'
import { HEADERS_TOO_LARGE, HUGE_HEADER, postRaw, type BadInputCase } from './bad-input-case.js'

const bad = { status: 400, error: 'invalid_request' } as const
const notFound = { status: 404, error: 'not_found' } as const
const csrf = { status: 403, error: 'csrf_failed' } as const

const raw = (name: string, head: string, expect: BadInputCase['expect'], body = ''): BadInputCase =>
  ({ route: 'unknown routes and methods', name, send: async (s) => await rawRequest(s.url, head, body), expect })

export const operationsCases: BadInputCase[] = [
  { route: '/healthz', name: 'invalid percent-encoding in the query', send: async (s) => await s.browser().get('/healthz?%&x=%E0%A4%A'), expect: { status: 200, body: { status: 'ok' } } },
  { route: '/healthz', name: 'POST', send: async (s) => await s.browser().post('/healthz'), expect: notFound },
  { route: '/healthz', name: 'trailing slash', send: async (s) => await s.browser().get('/healthz/'), expect: notFound },
  { route: '/healthz', name: 'a 20 KB header', send: async (s) => await s.browser().get('/healthz', HUGE_HEADER), expect: HEADERS_TOO_LARGE },
  { route: '/readyz', name: 'invalid percent-encoding in the query', send: async (s) => await s.browser().get('/readyz?x=%ZZ'), expect: { status: 200, body: { status: 'ready' } } },
  { route: '/readyz', name: 'DELETE without X-CSRF', send: async (s) => await s.browser().fetch('DELETE', '/readyz'), expect: csrf },
  { route: '/readyz', name: 'POST with a malformed JSON body', send: async (s) => await postRaw(s.browser(), '/readyz', '{'), expect: bad },
  { route: '/readyz', name: 'trailing slash', send: async (s) => await s.browser().get('/readyz/'), expect: notFound }
]

export const unknownCases: BadInputCase[] = [
  { route: 'unknown routes and methods', name: 'GET /nope', send: async (s) => await s.browser().get('/nope'), expect: notFound },
  { route: 'unknown routes and methods', name: 'invalid percent-encoding in the path', send: async (s) => await s.browser().get('/auth/%E0%A4%A'), expect: bad },
  { route: 'unknown routes and methods', name: '%ZZ in the path', send: async (s) => await s.browser().get('/%ZZ'), expect: bad },
  { route: 'unknown routes and methods', name: '%-encoded NUL after a route', send: async (s) => await s.browser().get('/auth/session%00'), expect: notFound },
  { route: 'unknown routes and methods', name: 'double leading slash', send: async (s) => await s.browser().get('//auth/session'), expect: notFound },
  { route: 'unknown routes and methods', name: '10 KB path', send: async (s) => await s.browser().get(`/${'p'.repeat(10_000)}`), expect: notFound },
  { route: 'unknown routes and methods', name: 'PUT /uploads/register', send: async (s) => await s.alice.fetch('PUT', '/uploads/register', { headers: { 'x-csrf': '1' }, json: { folder_id: 0 } }), expect: notFound },
  { route: 'unknown routes and methods', name: 'PATCH /auth/session', send: async (s) => await s.alice.fetch('PATCH', '/auth/session', { headers: { 'x-csrf': '1' } }), expect: notFound },
  { route: 'unknown routes and methods', name: 'POST /auth/login without X-CSRF', send: async (s) => await s.browser().fetch('POST', '/auth/login'), expect: csrf },
  { route: 'unknown routes and methods', name: 'POST /auth/callback', send: async (s) => await s.browser().post('/auth/callback'), expect: notFound },
  { route: 'unknown routes and methods', name: 'TRACE /', send: async (s) => await s.browser().fetch('TRACE', '/'), expect: csrf },
  {
    route: 'unknown routes and methods',
    name: 'CORS preflight from a foreign origin is not granted',
    send: async (s) => {
      const answer = await s.browser().fetch('OPTIONS', '/uploads/register', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-csrf' } })
      // The X-CSRF defence rests on this preflight failing: no allow-origin, ever.
      if (answer.headers['access-control-allow-origin'] !== undefined) return { ...answer, status: 599 }
      return answer
    },
    expect: notFound
  },
  raw('../ dot segments sent raw', 'GET /auth/../../etc/passwd HTTP/1.1\r\nHost: bff', notFound),
  raw('X-CSRF sent twice', 'POST /auth/logout HTTP/1.1\r\nHost: bff\r\nX-CSRF: 1\r\nX-CSRF: 1\r\nContent-Length: 0', csrf),
  // Refused by Node's parser: the answer must still be the contract's JSON.
  raw('an unknown method', 'FROB /healthz HTTP/1.1\r\nHost: bff', bad),
  raw('Content-Length and Transfer-Encoding together (smuggling)', 'POST /auth/logout HTTP/1.1\r\nHost: bff\r\nX-CSRF: 1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked', bad, '0\r\n\r\n'),
  raw('a raw NUL byte in the path', 'GET /auth/sess\x00ion HTTP/1.1\r\nHost: bff', bad),
  raw('raw overlong UTF-8 bytes in the path', 'GET /auth/session\xc0\xaf HTTP/1.1\r\nHost: bff', bad),
  raw('a bare CR inside a header value', 'GET /healthz HTTP/1.1\r\nHost: bff\r\nX-Split: a\rSet-Cookie: evil=1', bad)
]
