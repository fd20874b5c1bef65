// media-bff against a hostile media service: every URL, field and body the service hands back is
// input. Whatever it answers, media-bff sends nothing anywhere but the tenant's API and token
// endpoint, gives the browser nothing a foreign host said, answers in the contract (502, never a
// 500 of its own) and stays up with the session intact.
import t from 'tap'
import { startBff } from '../helpers/bff.js'
import { LOGIN_TO_BACK, signInWithoutConsent } from '../helpers/sign-in.js'
import { asUpstream, registration, startHostileService, VALID_ULID } from './hostile-media-service.js'

const service = await startHostileService()
t.teardown(service.close)
const bff = await startBff(asUpstream(service), {
  OAUTH_SCOPES: 'basic user.info upload',
  UPLOAD_ALLOWED_HOSTS: new URL(service.baseUrl).host,
  UPSTREAM_TIMEOUT_MS: '2000'
})
t.teardown(bff.close)

t.afterEach(async () => { service.reset() })

t.test('registration records that point anywhere but the tenant\'s API are refused with 502', async (t) => {
  const browser = bff.browser()
  t.equal(await signInWithoutConsent(browser, LOGIN_TO_BACK), '/back')
  const base = service.baseUrl
  const hostile: Array<[string, Record<string, unknown>]> = [
    ['finish on another host', { api: { finish: `${service.canaryUrl}/api/upload/id/${VALID_ULID}` } }],
    ['finish on the tenant, outside /api', { api: { finish: `${base}/internal/admin` } }],
    ['finish walking out of /api with dot segments', { api: { finish: `${base}/api/../internal/admin` } }],
    ['finish walking out with encoded dot segments', { api: { finish: `${base}/api/%2e%2e/internal/admin` } }],
    ['finish with encoded slashes', { api: { finish: `${base}/api/upload/%2f..%2f..%2finternal` } }],
    ['finish with credentials', { api: { finish: `http://user:pw@${new URL(base).host}/api/upload/id/${VALID_ULID}` } }],
    ['finish missing', { api: {} }],
    ['ulid that is not a ULID', { ulid: '../../oauth2/token' }],
    ['ulid that is a number', { ulid: 12 }],
    ['upload URL on another host', { url_upload_direct: `${service.canaryUrl}/upload?sig=x` }],
    ['upload URL with a script scheme', { url_upload_direct: 'javascript:alert(1)' }],
    ['no record at all', { ulid: undefined }]
  ]
  for (const [name, changes] of hostile) {
    service.answer('upload_id', () => ({ body: registration(base, changes) }))
    const answer = await browser.post('/uploads/register', { folder_id: 0 })
    t.equal(answer.status, 502, `${name}: 502`)
    t.equal(answer.json().error, 'upstream_error', name)
    t.notMatch(answer.text, service.canaryUrl, `${name}: nothing of the foreign host reaches the browser`)
    // A refused record is not remembered: finishing it is unknown.
    t.equal((await browser.post(`/uploads/${VALID_ULID}/finish`)).status, 404, `${name}: not finishable`)
  }
  t.same(service.canaryReceived, [], 'the canary host was never called')
})

t.test('upstream bodies are capped, redirects are not followed, nonsense is a 502', async (t) => {
  const browser = bff.browser()
  await signInWithoutConsent(browser, LOGIN_TO_BACK)
  const cases: Array<[string, () => { status?: number, headers?: Record<string, string>, body?: unknown }]> = [
    ['a 2 MB registration', () => ({ body: registration(service.baseUrl, { padding: 'x'.repeat(2_000_000) }) })],
    ['a redirect to another host', () => ({ status: 307, headers: { location: `${service.canaryUrl}/api/upload/id` } })],
    ['a body that is not JSON', () => ({ body: '<html>oops</html>' })],
    ['a JSON array', () => ({ body: [1, 2, 3] })]
  ]
  for (const [name, make] of cases) {
    service.answer('upload_id', make)
    const answer = await browser.post('/uploads/register', { folder_id: 0 })
    t.equal(answer.status, 502, `${name}: 502`)
    t.equal(answer.json().error, 'upstream_error', name)
  }
  t.same(service.canaryReceived, [], 'the canary host was never called')
})

t.test('a record without a usable expiry gets a sane one instead of a 5xx after the upstream registered', async (t) => {
  const browser = bff.browser()
  await signInWithoutConsent(browser, LOGIN_TO_BACK)
  for (const changes of [{ expires: undefined, expires_in: undefined }, { expires: 'soon', expires_in: 'NaN' }, { expires_in: -5, expires: null }, { expires_in: 1e12 }]) {
    service.answer('upload_id', () => ({ body: registration(service.baseUrl, changes) }))
    const answer = await browser.post('/uploads/register', { folder_id: 0 })
    t.equal(answer.status, 200, JSON.stringify(changes))
    const record = answer.json()
    t.ok(record.expires_in > 0 && record.expires_in <= 86_400, `expires_in ${record.expires_in} is finite and bounded`)
    t.ok(Number.isInteger(record.expires), 'expires is a Unix time')
    t.equal(answer.headers['cache-control'], 'no-store', 'a signed upload URL is never cached')
    t.equal((await browser.post(record.finish_url)).status, 200, 'and it can be finished')
  }
})

t.test('finish answers are filtered: links to foreign hosts never reach the browser', async (t) => {
  const browser = bff.browser()
  await signInWithoutConsent(browser, LOGIN_TO_BACK)
  const registered = (await browser.post('/uploads/register', { folder_id: 0 })).json()
  service.answer('finish', () => ({ body: { status: 'success', files: [{ file_id: 3, title: 't', urls: { file: `${service.canaryUrl}/steal` }, extra: 'secret' }, 'nonsense', { file_id: { $gt: 1 } }] } }))
  const finished = await browser.post(registered.finish_url)
  t.equal(finished.status, 200)
  t.same(finished.json(), { status: 'success', files: [{ file_id: 3, title: 't' }, {}, {}] })
  const finishCalls = service.received.filter((request) => request.method === 'DELETE')
  t.ok(finishCalls.every((request) => request.path === `/api/upload/id/${VALID_ULID}`), 'finish went to the tenant\'s API only')
  t.same(service.canaryReceived, [])
})

t.test('hostile token and user/info answers end in the contract, never on another host', async (t) => {
  const cases: Array<[string, 'token' | 'user_info', () => { status?: number, headers?: Record<string, string>, body?: unknown }, string]> = [
    ['token endpoint redirects elsewhere', 'token', () => ({ status: 307, headers: { location: `${service.canaryUrl}/token` } }), '/back?auth_error=unavailable'],
    ['token endpoint answers 5 MB', 'token', () => ({ body: { access_token: 'a', token_type: 'Bearer', padding: 'x'.repeat(5_000_000) } }), '/back?auth_error=unavailable'],
    ['token endpoint refuses the client', 'token', () => ({ status: 401, body: { error: 'invalid_client' } }), '/back?auth_error=unavailable'],
    ['user/info redirects elsewhere', 'user_info', () => ({ status: 302, headers: { location: `${service.canaryUrl}/me` } }), '/back'],
    ['user/info answers 5 MB', 'user_info', () => ({ body: { name: 'x'.repeat(5_000_000) } }), '/back']
  ]
  for (const [name, endpoint, make, landing] of cases) {
    service.answer(endpoint, make)
    t.equal(await signInWithoutConsent(bff.browser(), LOGIN_TO_BACK), landing, name)
    service.answer(endpoint, undefined)
  }
  service.answer('user_info', () => ({ body: { user_id: { evil: true }, name: 'n'.repeat(10_000), email: 'a\u0000b@example.org', scopes: ['upload', 'admin', 42] } }))
  const browser = bff.browser()
  await signInWithoutConsent(browser, LOGIN_TO_BACK)
  const session = (await browser.get('/auth/session')).json()
  t.same(session.user, { id: null, name: null, email: null }, 'an object id, an oversized name and a control-laden e-mail are dropped')
  t.same(service.canaryReceived, [], 'the canary host was never called')
})

t.test('media-bff stays up, and a session survives all of it', async (t) => {
  const browser = bff.browser()
  await signInWithoutConsent(browser, LOGIN_TO_BACK)
  service.answer('upload_id', () => ({ body: registration(service.baseUrl, { api: { finish: `${service.canaryUrl}/x` } }) }))
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).status, 502)
  service.answer('upload_id', undefined)
  t.equal((await browser.get('/healthz')).status, 200)
  t.equal((await browser.get('/auth/session')).json().authenticated, true)
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).status, 200)
  t.notOk(bff.logs.some((line) => line.includes('"level":50') && line.includes('unexpected error')), 'no unexpected error was logged')
  t.same(service.canaryReceived, [])
})

t.test('the media client (register here; finish and user/info alike): a 401 is retried after a refresh only when the token is said to be invalid', async (t) => {
  const browser = bff.browser()
  t.equal(await signInWithoutConsent(browser, LOGIN_TO_BACK), '/back')
  const registrations = (): number => service.received.filter((request) => request.path === '/api/upload/id').length
  let first = true
  service.answer('upload_id', () => {
    const reject = first
    first = false
    return reject ? { status: 401, body: { error: 'invalid_token', error_description: 'The access token expired' } } : { body: registration(service.baseUrl) }
  })
  let refreshes = service.refreshes()
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).status, 200, 'invalid_token: refreshed and retried')
  t.equal(service.refreshes(), refreshes + 1)

  service.answer('upload_id', () => ({ status: 401, body: { error: 'account_locked', user_message: 'Your account is locked.' } }))
  refreshes = service.refreshes()
  const sent = registrations()
  const refused = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(refused.status, 502, 'any other 401 is the service failing')
  t.match(refused.json(), { error: 'upstream_error', upstream: { endpoint: 'upload_id', status: 401, error: 'account_locked' } })
  t.equal(registrations() - sent, 1, 'not sent twice')
  t.equal(service.refreshes(), refreshes, 'no refresh')
})
