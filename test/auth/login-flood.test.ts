// GET /auth/login needs no sign-in, so what it stores is bounded: open sign-ins per browser
// (LOGIN_MAX_PER_BROWSER), the size of each transaction (return_to, scope), and, in memory, the
// transaction store itself, which refuses new sign-ins when full instead of evicting anyone's.
// The same with Redis: login-flood-redis.test.ts.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { parseSetCookie } from '../helpers/http-client.js'
import { consent, onServer, signIn, startLogin } from '../helpers/sign-in.js'
import { hashBinding } from '../../src/oauth/login-transactions.js'
import { StoreFullError } from '../../src/store/key-value-store.js'
import { perBrowserCapSuite } from './login-flood.suite.js'

perBrowserCapSuite(t, () => ({}))

t.test('the pre-login cookie lives as long as LOGIN_TIMEOUT', async (t) => {
  const stack = await startStack({ env: { LOGIN_TIMEOUT: '90s' } })
  t.teardown(stack.close)
  const login = await stack.bff.browser().get('/auth/login')
  t.equal(login.status, 302)
  const binding = login.setCookies.map(parseSetCookie).find((cookie) => cookie.name.endsWith('-login'))
  t.equal(binding?.attributes['max-age'], '90')
})

t.test('return_to is bounded (1024 characters, also once percent-encoded) and a transaction stays small', async (t) => {
  const { bff: stack, close } = await startStack({ env: { OAUTH_SCOPES: 'basic user.info manage share' } })
  t.teardown(close)
  const browser = stack.browser()
  const longest = `/${'a'.repeat(1023)}`
  const tooLong = await browser.get(`/auth/login?return_to=${encodeURIComponent(`${longest}a`)}`)
  t.equal(tooLong.status, 400)
  t.equal(tooLong.json().field, 'return_to')
  // 301 characters in the query, 1801 once the URL parser has percent-encoded each é (%C3%A9).
  const expands = await browser.get(`/auth/login?return_to=${encodeURIComponent(`/${'é'.repeat(300)}`)}`)
  t.equal(expands.status, 400, 'the bound applies to the path as stored')
  t.equal(expands.json().field, 'return_to')

  // The largest transaction this deployment can be made to store: the longest return_to and
  // every scope it may ask for.
  const authorizeUrl = await startLogin(browser, `/auth/login?return_to=${encodeURIComponent(longest)}&scope=${encodeURIComponent('upload manage share')}`)
  const state = new URL(authorizeUrl).searchParams.get('state') ?? ''
  const sealed = await stack.inner.ephemeralKv.get(`tx:${hashBinding(state)}`)
  t.ok(sealed, 'the transaction is stored under its state')
  const bytes = Buffer.byteLength(sealed ?? '')
  t.comment(`largest sealed login transaction: ${bytes} bytes`)
  t.ok(bytes <= 2048, `at most 2 KB (${bytes} bytes)`)
  const back = await browser.get(onServer(browser, await consent(browser, authorizeUrl)))
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

t.test('memory: a full transaction store refuses new sign-ins (503) and evicts nobody; signed-in sessions keep working', async (t) => {
  const { bff: stack, close } = await startStack({ env: { OAUTH_SCOPES: 'basic user.info upload' } })
  t.teardown(close)
  const signedIn = stack.browser()
  await signIn(signedIn)
  const midway = stack.browser()
  const midwayCallback = await consent(midway, await startLogin(midway, '/auth/login?return_to=/midway'))

  // Fill the store to its bound, as a flood of sign-ins from many addresses would.
  const store = stack.inner.ephemeralKv
  let filled = 0
  for (;;) {
    try {
      await store.set(`flood:${filled}`, 'x', 600_000)
    } catch (error) {
      if (error instanceof StoreFullError) break
      throw error
    }
    if (++filled > 1_000_000) throw new Error('the login store is not bounded')
  }
  t.comment(`${filled} entries filled the store`)

  const refused = await stack.browser().get('/auth/login')
  t.equal(refused.status, 503)
  t.same(refused.json(), { error: 'unavailable', message: 'Too many sign-ins are in progress right now. Try again shortly.' })
  t.equal(refused.headers['retry-after'], '30')
  t.notOk(refused.setCookies.some((line) => line.includes('-login=')), 'no pre-login cookie')
  t.equal((await signedIn.get('/auth/login')).status, 503, 'also for a signed-in browser: a new sign-in needs room')

  const finished = await midway.get(onServer(midway, midwayCallback))
  t.equal(finished.status, 302, 'the sign-in started before the flood was not evicted')
  t.equal(finished.location, '/midway')
  t.equal((await midway.get('/auth/session')).json().authenticated, true)
  t.equal((await signedIn.get('/auth/session')).json().authenticated, true, 'a signed-in session keeps working')
  t.equal((await signedIn.post('/uploads/register', { folder_id: 0 })).status, 200, 'and can register uploads')
  t.notOk(stack.logs.some((line) => line.includes('unexpected error')), 'no unexpected error was logged')
})
