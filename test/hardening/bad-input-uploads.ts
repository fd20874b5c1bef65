// Bad input for POST /uploads/register and POST /uploads/:ulid/finish, sent by signed-in alice
// unless the row says otherwise.
import { TEST_SESSION_SECRET } from '../helpers/bff.js'
import { rawRequest } from './raw-http.js'
import { flipSignature, signedWithOtherSecret, unknownSession } from './forged-cookies.js'
import { aliceCookie, HEADERS_TOO_LARGE, HUGE_HEADER, JSON_CSRF, postRaw, withSessionCookie, type BadInputCase } from './bad-input-case.js'

const REGISTER = '/uploads/register'
const bad = { status: 400, error: 'invalid_request' } as const
const csrf = { status: 403, error: 'csrf_failed' } as const
const login = { status: 401, error: 'login_required' } as const
const notFound = { status: 404, error: 'not_found' } as const

const registerBody = (name: string, body: string, headers: Record<string, string> = JSON_CSRF): BadInputCase =>
  ({ route: REGISTER, name, send: async (s) => await postRaw(s.alice, REGISTER, body, headers), expect: bad })

const registerJson = (name: string, body: unknown, expect: BadInputCase['expect'] = bad, headers: Record<string, string> = {}): BadInputCase =>
  ({ route: REGISTER, name, send: async (s) => await s.alice.post(REGISTER, body, headers), expect })

export const registerCases: BadInputCase[] = [
  // Malformed and truncated JSON, and bodies that are JSON but not an object.
  registerBody('malformed JSON', '{"folder_id":'),
  registerBody('truncated JSON string', '{"folder_id": 1, "title": "Holi'),
  registerBody('trailing garbage after the object', '{"folder_id":1}xyz'),
  registerBody('empty body declared as JSON', ''),
  registerBody('JSON null', 'null'),
  registerBody('JSON array', '[{"folder_id":1}]'),
  registerBody('JSON number', '5'),
  registerBody('__proto__ key (prototype poisoning)', '{"folder_id":0,"__proto__":{"admin":true}}'),
  registerBody('constructor.prototype key', '{"folder_id":0,"constructor":{"prototype":{"admin":true}}}'),
  // Wrong content types.
  registerBody('form-urlencoded', 'folder_id=1', { 'x-csrf': '1', 'content-type': 'application/x-www-form-urlencoded' }),
  registerBody('text/plain carrying JSON', '{"folder_id":1}', { 'x-csrf': '1', 'content-type': 'text/plain' }),
  registerBody('multipart/form-data', '--b\r\nContent-Disposition: form-data; name="folder_id"\r\n\r\n1\r\n--b--\r\n', { 'x-csrf': '1', 'content-type': 'multipart/form-data; boundary=b' }),
  registerBody('no content-type', '{"folder_id":1}', { 'x-csrf': '1' }),
  { route: REGISTER, name: 'no body and no content-type', send: async (s) => await postRaw(s.alice, REGISTER, undefined, { 'x-csrf': '1' }), expect: bad },
  // Wrong types and ranges of folder_id, unknown fields.
  registerJson('folder_id negative', { folder_id: -1 }),
  registerJson('folder_id 2^31 (huge)', { folder_id: 2 ** 31 }),
  registerBody('folder_id 1e308', '{"folder_id":1e308}'),
  registerBody('folder_id beyond double precision', '{"folder_id":99999999999999999999999}'),
  registerJson('folder_id float', { folder_id: 1.5 }),
  registerJson('folder_id string', { folder_id: '5' }),
  registerJson('folder_id missing', { title: 'x' }),
  registerJson('folder_id null', { folder_id: null }),
  registerJson('folder_id array', { folder_id: [1] }),
  registerJson('folder_id boolean', { folder_id: true }),
  registerJson('unknown field', { folder_id: 0, owner: 'bob' }),
  registerJson('options is an array', { folder_id: 0, options: [] }),
  registerJson('CRLF in a file extension', { folder_id: 0, options: { file_extensions: ['jp\r\ng'] } }),
  registerJson('title longer than 255', { folder_id: 0, title: 't'.repeat(256) }),
  // Size limits.
  registerJson('body over BODY_LIMIT', { folder_id: 0, title: 'x'.repeat(20_000) }, { status: 413, error: 'payload_too_large' }),
  {
    route: REGISTER,
    name: 'Content-Length claims 1 MB',
    send: async (s) => await rawRequest(s.url, `POST ${REGISTER} HTTP/1.1\r\nHost: bff\r\nX-CSRF: 1\r\nContent-Type: application/json\r\nCookie: ${s.cookieName}=${aliceCookie(s)}\r\nContent-Length: 1000000`, '{"folder_id":0}'),
    expect: { status: 413, error: 'payload_too_large' }
  },
  { route: REGISTER, name: 'a 20 KB header', send: async (s) => await s.alice.post(REGISTER, { folder_id: 0 }, HUGE_HEADER), expect: HEADERS_TOO_LARGE },
  // CSRF.
  { route: REGISTER, name: 'no X-CSRF', send: async (s) => await s.alice.fetch('POST', REGISTER, { json: { folder_id: 0 } }), expect: csrf },
  registerJson('X-CSRF: 0', { folder_id: 0 }, csrf, { 'x-csrf': '0' }),
  registerJson('X-CSRF: true', { folder_id: 0 }, csrf, { 'x-csrf': 'true' }),
  registerJson('foreign Origin', { folder_id: 0 }, csrf, { origin: 'https://evil.example' }),
  registerJson('Origin: null', { folder_id: 0 }, csrf, { origin: 'null' }),
  { route: REGISTER, name: 'Origin that only starts with PUBLIC_URL', send: async (s) => await s.alice.post(REGISTER, { folder_id: 0 }, { origin: `${s.url}.evil.example` }), expect: csrf },
  // Sessions that are not alice's.
  { route: REGISTER, name: 'no session', send: async (s) => await s.browser().post(REGISTER, { folder_id: 0 }), expect: login },
  { route: REGISTER, name: 'session cookie with one signature character flipped', send: async (s) => await withSessionCookie(s, flipSignature(aliceCookie(s))).post(REGISTER, { folder_id: 0 }), expect: login },
  { route: REGISTER, name: 'session id signed with another secret', send: async (s) => await withSessionCookie(s, signedWithOtherSecret(aliceCookie(s))).post(REGISTER, { folder_id: 0 }), expect: login },
  { route: REGISTER, name: 'well-signed unknown session id', send: async (s) => await withSessionCookie(s, unknownSession(TEST_SESSION_SECRET)).post(REGISTER, { folder_id: 0 }), expect: login }
]

const finish = (ulid: string): string => `/uploads/${ulid}/finish`
const finishPath = (name: string, path: string, expect: BadInputCase['expect']): BadInputCase =>
  ({ route: '/uploads/:ulid/finish', name, send: async (s) => await s.alice.post(path), expect })
// Paths a client would normalise (dot segments) go out byte for byte.
const finishRaw = (name: string, path: string, expect: BadInputCase['expect']): BadInputCase => ({
  route: '/uploads/:ulid/finish',
  name,
  send: async (s) => await rawRequest(s.url, `POST ${path} HTTP/1.1\r\nHost: bff\r\nX-CSRF: 1\r\nCookie: ${s.cookieName}=${aliceCookie(s)}\r\nContent-Length: 0`),
  expect
})

export const finishCases: BadInputCase[] = [
  { route: '/uploads/:ulid/finish', name: 'another session\'s ulid', send: async (s) => await s.bob.post(finish(s.aliceUlid)), expect: notFound },
  { route: '/uploads/:ulid/finish', name: 'alice\'s ulid from another of alice\'s sessions', send: async (s) => await (await s.signedIn('alice')).post(finish(s.aliceUlid)), expect: notFound },
  finishPath('a well-formed ulid nobody registered', finish('01ARZ3NDEKTSV4RRFFQ69G5FAV'), notFound),
  { route: '/uploads/:ulid/finish', name: 'alice\'s ulid in lower case', send: async (s) => await s.alice.post(finish(s.aliceUlid.toLowerCase())), expect: notFound },
  { route: '/uploads/:ulid/finish', name: 'alice\'s ulid plus one character (27)', send: async (s) => await s.alice.post(finish(`${s.aliceUlid}0`)), expect: notFound },
  finishPath('..%2F..%2Fapi', finish('..%2F..%2Fapi'), bad),
  finishPath('encoded slash inside a ulid', finish('01ARZ3NDEK%2FTSV4RRFFQ69G5FA'), bad),
  finishRaw('%2E%2E sent without client normalisation', finish('%2E%2E'), bad),
  finishRaw('../ dot segments sent raw', '/uploads/../auth/logout/finish', notFound),
  finishPath('%-encoded NUL', finish('%00'), bad),
  finishPath('full-width solidus', finish('%EF%BC%8F'), bad),
  finishPath('overlong UTF-8 slash', finish('%C0%AF'), bad),
  finishPath('invalid percent-encoding', finish('%E0%A4%A'), bad),
  finishPath('100 characters', finish('A'.repeat(100)), bad),
  finishPath('300 characters (over the router\'s parameter limit)', finish('A'.repeat(300)), notFound),
  finishPath('empty ulid', finish(''), bad),
  { route: '/uploads/:ulid/finish', name: 'malformed JSON body', send: async (s) => await postRaw(s.alice, finish(s.aliceUlid), '{'), expect: bad },
  { route: '/uploads/:ulid/finish', name: 'no X-CSRF', send: async (s) => await s.alice.fetch('POST', finish(s.aliceUlid)), expect: csrf },
  { route: '/uploads/:ulid/finish', name: 'Origin: null', send: async (s) => await s.alice.post(finish(s.aliceUlid), undefined, { origin: 'null' }), expect: csrf },
  { route: '/uploads/:ulid/finish', name: 'no session', send: async (s) => await s.browser().post(finish(s.aliceUlid)), expect: login },
  { route: '/uploads/:ulid/finish', name: 'alice\'s id with a flipped signature', send: async (s) => await withSessionCookie(s, flipSignature(aliceCookie(s))).post(finish(s.aliceUlid)), expect: login },
  { route: '/uploads/:ulid/finish', name: 'GET instead of POST', send: async (s) => await s.alice.get(finish(s.aliceUlid)), expect: notFound }
]
