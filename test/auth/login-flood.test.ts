// GET /auth/login needs no sign-in, so it must cost nothing that signed-in users need: the login
// transaction is sealed into the browser's cookie and nothing is stored. In memory here; the
// same on Redis in login-flood-redis.test.ts. What one browser may hold (LOGIN_MAX_PER_BROWSER,
// 4 KiB of login cookies) and how big a transaction may get (return_to, scope) are bounded too.
import t from 'tap'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import { parseSetCookie } from '../helpers/http-client.js'
import { consent, onServer, signIn, startLogin } from '../helpers/sign-in.js'
import { perBrowserCapSuite } from './login-flood.suite.js'
import { signInFloodSuite } from './sign-in-flood.suite.js'

// A flood of 13,200 requests from 12,000 addresses (past the 10,000 counters an instance keeps per
// address): some 100 s of work on a shared 2-core machine, too near the suite's 120 s per file
// (package.json) once other work runs beside it. This file's budget is its own.
t.setTimeout(300_000)

perBrowserCapSuite(t, () => ({}))

signInFloodSuite(t, async (stack) => {
  const entries = (): number => Object.values(stack.bff.app.stores.sizes()).reduce((sum, size) => sum + size, 0)
  return {
    env: {},
    keyCount: async () => entries(),
    describeStore: async () => `${entries()} entries in the memory stores`
  }
})

t.test('a login cookie lives as long as LOGIN_TIMEOUT and is HttpOnly, SameSite=Lax, Path=/', async (t) => {
  const stack = await startStack({ env: { LOGIN_TIMEOUT: '90s' } })
  t.teardown(stack.close)
  const login = await stack.bff.browser().get('/auth/login')
  t.equal(login.status, 302)
  const cookie = login.setCookies.map(parseSetCookie).find((c) => c.name.includes('-login-'))
  t.equal(cookie?.attributes['max-age'], '90')
  t.equal(cookie?.attributes.httponly, true)
  t.equal(cookie?.attributes.samesite, 'Lax')
  t.equal(cookie?.attributes.path, '/')
  t.same(Object.values(stack.bff.app.stores.sizes()).filter((size) => size > 0), [], 'and nothing was stored')
})

t.test('return_to is bounded (512 characters, also once percent-encoded) and a transaction fits its slot', async (t) => {
  const { bff: stack, close } = await startStack({ env: { OAUTH_SCOPES: 'basic user.info manage share' } })
  t.teardown(close)
  const browser = stack.browser()
  const longest = `/${'a'.repeat(511)}`
  const tooLong = await browser.get(`/auth/login?return_to=${encodeURIComponent(`${longest}a`)}`)
  t.equal(tooLong.status, 400)
  t.equal(tooLong.json().field, 'return_to')
  // 151 characters in the query, 901 once the URL parser has percent-encoded each é (%C3%A9).
  const expands = await browser.get(`/auth/login?return_to=${encodeURIComponent(`/${'é'.repeat(150)}`)}`)
  t.equal(expands.status, 400, 'the bound applies to the path as stored')
  t.equal(expands.json().field, 'return_to')

  // The largest transaction this deployment can be made to carry: the longest return_to and
  // every scope it may ask for.
  const login = await browser.get(`/auth/login?return_to=${encodeURIComponent(longest)}&scope=${encodeURIComponent('upload manage share')}`)
  const cookie = login.setCookies.map(parseSetCookie).find((c) => c.name.includes('-login-'))
  const bytes = (cookie?.name.length ?? 0) + (cookie?.value.length ?? 0) + 1
  t.comment(`largest login cookie: ${bytes} bytes`)
  t.ok(bytes <= 1365, `within its slot, a third of 4 KiB (${bytes} bytes)`)
  const back = await browser.get(onServer(browser, await consent(browser, login.location ?? '')))
  t.equal(back.location, longest, 'and the longest return_to still works')
})

// Every scope of the service is now required by some route (upload by the upload routes, manage
// and share by the relay), and granted scopes are limited to the service's: so what a sign-in may
// ask for is exactly the service's five scopes.
t.test('scope= accepts only what this deployment asks for: OAUTH_SCOPES and scopes routes require', async (t) => {
  const stack = await startStack({ env: { OAUTH_SCOPES: 'basic user.info' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  for (const scope of ['admin', 'upload admin', 'openid']) {
    const refused = await browser.get(`/auth/login?scope=${encodeURIComponent(scope)}`)
    t.equal(refused.status, 400, `refused: ${scope}`)
    t.equal(refused.json().error, 'invalid_request')
    t.equal(refused.json().field, 'scope')
    t.same([...refused.json().known_scopes].sort(), ['basic', 'manage', 'share', 'upload', 'user.info'], 'the scopes it may ask for')
  }
  t.equal((await browser.get('/auth/login?scope=upload')).status, 302, 'upload: required by POST /uploads/register')
  t.equal((await browser.get('/auth/login?scope=manage')).status, 302, 'manage: required by the relay\'s writes')
  t.equal((await browser.get('/auth/login?scope=share')).status, 302, 'share: required by the relay\'s share operations')
})

t.test('a browser that sends its login cookies back many times over stays within 4 KiB of them', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const long = `/${'b'.repeat(511)}`
  for (let i = 0; i < 6; i++) await startLogin(browser, `/auth/login?return_to=${encodeURIComponent(long)}`)
  const logins = [...browser.cookies].filter(([name]) => name.includes('-login-'))
  const bytes = logins.reduce((sum, [name, value]) => sum + name.length + value.length + 1, 0)
  t.ok(bytes <= 4096, `${logins.length} login cookies, ${bytes} bytes`)
  t.equal(logins.length, 3, 'one per slot: the newest ones are kept')
})

t.test('16 tabs starting a sign-in at once cannot lock the browser out: within 4 KiB, and it can always sign in again', async (t) => {
  const stack = await startStack({ env: UNLIMITED_RATES })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const long = `/${'c'.repeat(511)}`
  // Each request carries the cookies the browser had before any of them answered.
  const before = browser.cookieHeader()
  const answers = await Promise.all(Array.from({ length: 16 }, async () => await browser.fetch('GET', `/auth/login?return_to=${encodeURIComponent(long)}`, { headers: before === undefined ? {} : { cookie: before } })))
  t.ok(answers.every((answer) => answer.status === 302), 'each one starts')
  const logins = [...browser.cookies].filter(([name]) => name.includes('-login-'))
  const bytes = logins.reduce((sum, [name, value]) => sum + name.length + value.length + 1, 0)
  t.ok(logins.length <= 3 && bytes <= 4096, `${logins.length} login cookies, ${bytes} bytes`)
  t.equal((await browser.get('/auth/session')).status, 200, 'its requests still go through')
  const again = await signIn(browser)
  t.equal(again.callback.status, 302, 'and a new sign-in completes')
  const lost = answers.map((answer) => answer.location ?? '')
  let expired = 0
  for (const authorizeUrl of lost) {
    const callback = await browser.get(onServer(browser, await consent(browser, authorizeUrl)))
    if (callback.status === 400 && /took its place/.test(callback.text)) expired++
    else t.comment(`${callback.status} ${/Reference: (\w+)/.exec(callback.text)?.[1] ?? callback.location ?? ''}`)
  }
  t.ok(expired >= 13, `a tab whose slot went is told its sign-in expired, not that it came from another browser (${expired} of 16)`)
})
