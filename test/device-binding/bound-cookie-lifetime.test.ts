// What a thief who copied every cookie of a bound session (the short-lived one too) gets: calls
// until that cookie runs out (DEVICE_BOUND_COOKIE_LIFETIME), then nothing, while the browser with
// the key goes on. And with DEVICE_BOUND_SESSIONS off, nothing is offered and the routes are not
// there. On a clock the test moves on.
import t from 'tap'
import { build } from '../helpers/build.js'
import { DbscBrowser } from '../helpers/dbsc-browser.js'

function testClock () {
  let time = Date.now()
  return { now: () => time, pass: (ms: number) => { time += ms } }
}

t.test('a copied short-lived cookie is worth DEVICE_BOUND_COOKIE_LIFETIME at most', async (t) => {
  const clock = testClock()
  const stack = await build(t, { env: { DEVICE_BOUND_SESSIONS: 'on', DEVICE_BOUND_COOKIE_LIFETIME: '5m', AUDIT_LOG: 'off', OAUTH_SCOPES: 'basic user.info upload' }, clock: clock.now })
  const alice = new DbscBrowser(await stack.signedIn('alice'), { now: clock.now })
  await alice.call('GET', '/auth/session')
  t.ok(alice.session, 'bound')
  const thief = stack.browser()
  for (const [name, value] of alice.browser.cookies) thief.cookies.set(name, value)
  const copied = await thief.post('/uploads/register', { folder_id: 0 })
  t.equal(copied.status, 200, 'the copy works while its short-lived cookie lasts')
  clock.pass(5 * 60_000 - 2000)
  t.equal((await thief.post('/uploads/register', { folder_id: 0 })).status, 200, 'up to its end')
  clock.pass(3000)
  t.equal((await thief.post('/uploads/register', { folder_id: 0 })).status, 401, 'then it is refused')
  t.equal((await thief.get('/auth/session')).json().authenticated, false)
  t.equal((await alice.call('POST', '/uploads/register', { folder_id: 0 })).status, 200, 'the browser with the key renews and goes on')
  t.same(alice.exchanges.map((exchange) => exchange.step), ['register', 'refresh'])
  const renewed = alice.browser.cookies.get(`${stack.config.session.cookieName}-bound`)
  t.not(renewed, thief.cookies.get(`${stack.config.session.cookieName}-bound`), 'with a new cookie the thief does not have')
})

t.test('a re-authorization keeps the binding: no window for another key', async (t) => {
  const stack = await build(t, { env: { DEVICE_BOUND_SESSIONS: 'on', AUDIT_LOG: 'off' }, emulator: { redirectUri: 'http://127.0.0.1:3000/auth/callback' } })
  const alice = new DbscBrowser(await stack.signedIn('alice', ['basic', 'user.info']), { now: Date.now })
  await alice.call('GET', '/auth/session')
  const { consent, onServer } = await import('../helpers/sign-in.js')
  const login = await alice.browser.navigate('/auth/login?scope=upload&return_to=/back')
  const callback = await alice.browser.navigate(onServer(alice.browser, await consent(alice.browser, login.location ?? '', 'alice')))
  t.equal(callback.location, '/back', 'signed in again, with upload')
  const answer = await alice.call('GET', '/auth/session')
  t.ok((answer.json().scopes as string[]).includes('upload'))
  t.equal(answer.headers['secure-session-registration'], undefined, 'still bound: nothing offered')
  const thief = stack.browser()
  thief.cookies.set(stack.config.session.cookieName, alice.browser.cookies.get(stack.config.session.cookieName) ?? '')
  t.equal((await thief.post('/uploads/register', { folder_id: 0 })).status, 401, 'the new session\'s cookie alone is refused')
  t.equal((await alice.call('POST', '/uploads/register', { folder_id: 0 })).status, 200)
})

t.test('a session is offered a binding only in the first minutes after its sign-in', async (t) => {
  const clock = testClock()
  const stack = await build(t, { env: { DEVICE_BOUND_SESSIONS: 'on', AUDIT_LOG: 'off' }, clock: clock.now })
  const browser = await stack.signedIn('alice')
  t.type((await browser.get('/auth/session')).headers['secure-session-registration'], 'string', 'just signed in: offered')
  clock.pass(2 * 60_000 + 1)
  t.equal((await browser.get('/auth/session')).headers['secure-session-registration'], undefined, 'later: not, so a cookie copied since cannot bind the session')
  const late = new DbscBrowser(browser, { now: clock.now })
  await late.afterResponse({ status: 200, headers: { 'secure-session-registration': '(ES256);path="/auth/device/register";challenge="g.0.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA"' }, text: '', json: () => ({}), location: undefined, setCookies: [] })
  t.same(late.exchanges, [{ step: 'register', status: 400 }], 'and a registration is refused')
  t.equal((await browser.post('/auth/session/keepalive')).json().authenticated, true, 'the session goes on, unbound')
})

t.test('DEVICE_BOUND_SESSIONS off: nothing offered, no such routes', async (t) => {
  const stack = await build(t)
  const browser = await stack.signedIn('alice')
  t.equal((await browser.get('/auth/session')).headers['secure-session-registration'], undefined)
  t.equal((await browser.post('/auth/device/register')).status, 404)
  t.equal((await browser.post('/auth/device/refresh')).status, 404)
})
