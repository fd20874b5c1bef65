// RFC 10017 §6.1.3.3.2: once a static custom header is the CSRF defence, every request to the
// BFF's API must carry it, reads included (a read spends the person's token at the media service
// or shows their data). Over real HTTP with a signed-in browser: each call a page makes is
// refused without X-CSRF, before anything reaches the service; navigations, the service's
// signed webhooks, probes and the browser module need none; a route that does not exist answers
// 404 to a read and 403 to a write without it.
import t from 'tap'
import { request } from 'undici'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { signedWebhook } from '../helpers/webhooks.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'

const stack = await startStack({ env: { ...UNLIMITED_RATES, OAUTH_SCOPES: 'basic user.info upload', WEBHOOK_KEYS: WEBHOOK_KEY, ALLOWED_ORIGINS: 'http://localhost:8080' } })
t.teardown(stack.close)
const browser = stack.bff.browser()
t.equal((await signIn(browser)).callback.status, 302)
const cookie = browser.cookieHeader() ?? ''

const PAGE_CALLS: Array<[method: string, path: string, body?: unknown]> = [
  ['GET', '/api/folders/0/contents'],
  ['GET', '/api/user/info'],
  ['GET', '/auth/session'],
  ['HEAD', '/auth/session'],
  ['GET', '/auth/sessions'],
  ['GET', '/events'],
  ['POST', '/auth/session/keepalive'],
  ['POST', '/uploads/register', { folder_id: 0 }],
  ['POST', '/auth/sessions/end-others'],
  ['POST', '/api/folders/0', { name: 'Not made' }]
]

const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number, json: any }> => {
  const answer = await request(`${stack.bff.url}${path}`, {
    method: method as 'GET',
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await answer.body.text()
  let json: any
  try { json = JSON.parse(text) } catch {}
  return { status: answer.statusCode, json }
}

t.test('every call a page makes, reads included, is refused without X-CSRF, and nothing reaches the service', async (t) => {
  const before = stack.emulator.receivedRequests().length
  for (const [method, path, body] of PAGE_CALLS) {
    const refused = await call(method, path, {}, body)
    t.equal(refused.status, 403, `${method} ${path}: 403`)
    if (method !== 'HEAD') t.match(refused.json, { error: 'csrf_failed', message: /X-CSRF: 1/ }, `${method} ${path}: the contract's csrf_failed, naming the header`)
  }
  t.equal(stack.emulator.receivedRequests().length, before, 'the person\'s token was not spent on any of them')
  t.equal((await call('GET', '/auth/session', { 'x-csrf': '1' })).json.authenticated, true, 'the session is still there')
})

t.test('with the header, from a foreign origin: refused too; from an allowed one: answered', async (t) => {
  for (const [method, path, body] of PAGE_CALLS.filter(([method]) => method === 'GET')) {
    t.match(await call(method, path, { 'x-csrf': '1', origin: 'https://evil.example' }, body), { status: 403, json: { error: 'csrf_failed', message: /origin/ } }, `${method} ${path} from another origin`)
  }
  t.equal((await call('GET', '/api/folders/0/contents', { 'x-csrf': '1', origin: 'http://localhost:8080' })).status, 200, 'an origin of ALLOWED_ORIGINS')
  t.equal((await call('GET', '/api/folders/0/contents', { 'x-csrf': '1' })).status, 200, 'the page\'s own origin, which sends no Origin on a read')
})

t.test('navigations, the service\'s webhooks, probes, the browser module and preflights need no header', async (t) => {
  t.equal((await call('GET', '/auth/login', {})).status, 302, 'sign-in is a navigation')
  t.equal((await call('GET', '/auth/callback?error=access_denied', {})).status, 400, 'so is the callback (a human page here: no sign-in was started)')
  for (const path of ['/healthz', '/readyz', '/client/media-bff-client.js', '/metrics']) t.equal((await call('GET', path, {})).status, 200, path)
  const webhook = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: signedWebhook(WEBHOOK_KEY) })
  t.equal(webhook.statusCode, 202, 'the webhook: its signature instead')
  await webhook.body.dump()
  const preflight = await request(`${stack.bff.url}/auth/session`, { method: 'OPTIONS', headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-csrf' } })
  t.equal(preflight.statusCode, 204, 'a preflight never carries it, and is answered')
  t.match(String(preflight.headers['access-control-allow-headers']), /x-csrf/)
  await preflight.body.dump()
})

t.test('no route: a read is the contract\'s 404, a write without the header its 403', async (t) => {
  t.match(await call('GET', '/nothing-here', {}), { status: 404, json: { error: 'not_found' } })
  t.match(await call('POST', '/nothing-here', {}), { status: 403, json: { error: 'csrf_failed' } })
})
