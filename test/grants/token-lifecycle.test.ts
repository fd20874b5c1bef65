// Token lifecycle acceptance: one refresh per grant expiry however many requests race, in one
// process and across two over Redis; outages keep the session; dead grants ask for sign-in.
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { startRedis } from '../helpers/redis.js'
import { startBff, startEmulatorFor, startStack, TEST_SESSION_SECRET, testTokenKey } from '../helpers/bff.js'
import { freePort } from '../helpers/ports.js'
import { signIn } from '../helpers/sign-in.js'
import type { Browser } from '../helpers/http-client.js'
import type { RunningEmulator } from '../../emulator/index.js'

const redis = await startRedis()
t.teardown(redis.destroy)

const SHORT_TTL_S = 2
const uploadEnv = { OAUTH_SCOPES: 'basic user.info upload', RATE_LIMIT_REGISTER_PER_MINUTE: '100000' }
/**
 * Lets the signed-in grant's short-lived token expire, then makes the tokens the emulator issues
 * from now on long-lived, so a burst that outlasts the short lifetime still needs exactly one
 * refresh (a second one would be legitimate, not a race).
 */
async function expireGrant (emulator: RunningEmulator): Promise<void> {
  await sleep(SHORT_TTL_S * 1000 + 200)
  emulator.configure({ accessTokenTtl: 3600 })
}

async function registerMany (browsers: Browser[], count: number): Promise<number[]> {
  const calls = Array.from({ length: count }, async (_, i) => (await browsers[i % browsers.length]!.post('/uploads/register', { folder_id: 0 })).status)
  return await Promise.all(calls)
}

t.test('100 concurrent requests on an expired grant: exactly one refresh, all succeed', async (t) => {
  const stack = await startStack({ emulator: { accessTokenTtl: SHORT_TTL_S }, env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  await expireGrant(stack.emulator)
  const before = stack.emulator.counters()
  const statuses = await registerMany([browser], 100)
  const after = stack.emulator.counters()
  t.same(new Set(statuses), new Set([200]), 'all 100 succeed')
  t.equal(after.tokenGrants.refresh_token - before.tokenGrants.refresh_token, 1, 'exactly one refresh')
  t.equal(after.refreshReuseDetections, 0, 'no refresh token reused')

  // The next refresh (forced by the service refusing the token) redeems the rotated refresh
  // token: the newest one was kept, or the emulator would detect reuse and end the grant.
  stack.emulator.injectFault({ endpoint: 'upload_id', failStatus: 401, failCount: 1 })
  t.same(new Set(await registerMany([browser], 20)), new Set([200]))
  t.equal(stack.emulator.counters().tokenGrants.refresh_token - before.tokenGrants.refresh_token, 2)
  t.equal(stack.emulator.counters().refreshReuseDetections, 0)
})

async function twoInstances (t: Test, prefix: string, emulatorOptions = {}, env: Record<string, string> = {}) {
  const portA = await freePort()
  const portB = await freePort()
  const publicUrl = `http://127.0.0.1:${portA}`
  const emulator = await startEmulatorFor(portA, { accessTokenTtl: SHORT_TTL_S, ...emulatorOptions })
  const shared = { ...uploadEnv, ...env, PUBLIC_URL: publicUrl, REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, SESSION_SECRETS: TEST_SESSION_SECRET, TOKEN_KEYS: testTokenKey() }
  const a = await startBff(emulator, shared, portA)
  const b = await startBff(emulator, shared, portB)
  t.teardown(async () => { await a.close(); await b.close(); await emulator.stop() })
  const browserA = a.browser()
  await signIn(browserA)
  const browserB = b.browser()
  for (const [name, value] of browserA.cookies) browserB.cookies.set(name, value)
  return { emulator, a, b, browserA, browserB }
}

t.test('two instances over one Redis: exactly one refresh, all succeed', async (t) => {
  const { emulator, browserA, browserB } = await twoInstances(t, 'two:')
  t.equal((await browserB.get('/auth/session')).json().user.name, 'Alice Example', 'B serves the session A created')
  await expireGrant(emulator)
  const before = emulator.counters()
  const statuses = await registerMany([browserA, browserB], 100)
  t.same(new Set(statuses), new Set([200]), 'all 100 succeed')
  t.equal(emulator.counters().tokenGrants.refresh_token - before.tokenGrants.refresh_token, 1, 'exactly one refresh')
  t.equal(emulator.counters().refreshReuseDetections, 0)
})

t.test('a refresh slower than the lock lease still happens exactly once', async (t) => {
  const { emulator, browserA, browserB } = await twoInstances(t, 'slow:', {}, { REFRESH_LOCK_LEASE: '1' })
  await expireGrant(emulator)
  // The lease is 1 s; the token endpoint takes 3.5 s: only renewal keeps the lock.
  emulator.injectFault({ endpoint: 'token', delayMs: 3500 })
  const before = emulator.counters()
  const statuses = await registerMany([browserA, browserB], 40)
  emulator.clearFaults()
  t.same(new Set(statuses), new Set([200]))
  t.equal(emulator.counters().tokenGrants.refresh_token - before.tokenGrants.refresh_token, 1, 'exactly one refresh')
  t.equal(emulator.counters().refreshReuseDetections, 0)
})

for (const [name, fault, env] of [
  ['answers 500', { endpoint: 'token', failStatus: 500, failCount: 1 }, {}],
  ['times out', { endpoint: 'token', delayMs: 1500 }, { UPSTREAM_TIMEOUT_MS: '700' }],
  ['drops the connection', { endpoint: 'token', drop: true, failCount: 1 }, {}],
  ['answers 429', { endpoint: 'token', failStatus: 429, failCount: 1 }, {}]
] as const) {
  t.test(`token endpoint ${name}: 503 with Retry-After, session kept, same cookie works after`, async (t) => {
    const stack = await startStack({ emulator: { accessTokenTtl: SHORT_TTL_S }, env: { ...uploadEnv, ...env } })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    await signIn(browser)
    await sleep(SHORT_TTL_S * 1000 + 200)
    stack.emulator.injectFault(fault)
    const failed = await browser.post('/uploads/register', { folder_id: 0 })
    t.equal(failed.status, 503)
    t.equal(failed.json().error, 'unavailable')
    t.match(failed.headers['retry-after'], /^\d+$/)
    t.notOk(failed.setCookies.some((line) => /Expires=Thu, 01 Jan 1970|Max-Age=0/i.test(line)), 'cookie not cleared')
    stack.emulator.clearFaults()
    t.equal((await browser.get('/auth/session')).json().authenticated, true, 'session kept')
    // A refresh the endpoint was slow to answer goes on in the background; once it lands (or a
    // new one succeeds) the same cookie works.
    let status = 0
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await browser.post('/uploads/register', { folder_id: 0 })).status
      if (status !== 200) await sleep(250)
    }
    t.equal(status, 200, 'works after recovery')
    t.equal(stack.emulator.counters().refreshReuseDetections, 0, 'no refresh token was ever reused')
  })
}

t.test('a revoked refresh token: 401 reauth_required, then a signed-out session', async (t) => {
  const stack = await startStack({ emulator: { accessTokenTtl: SHORT_TTL_S }, env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  stack.emulator.revokeTokens('alice')
  await sleep(SHORT_TTL_S * 1000 + 200)
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(answer.status, 401)
  t.equal(answer.json().error, 'reauth_required')
  t.equal(answer.json().login_url, '/auth/login')
  const session = (await browser.get('/auth/session')).json()
  t.ok(session.authenticated === false || session.reauth_required === true, 'never a healthy session')
  t.equal(session.authenticated, false)
})

t.test('the service refusing a live token: one refresh and a retry', async (t) => {
  const stack = await startStack({ env: uploadEnv })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const before = stack.emulator.counters()
  stack.emulator.injectFault({ endpoint: 'upload_id', failStatus: 401, failCount: 1 })
  const answer = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(answer.status, 200)
  t.equal(stack.emulator.counters().tokenGrants.refresh_token - before.tokenGrants.refresh_token, 1)
})

t.test('bob lacks the upload right: insufficient_scope, then scope_not_granted with no second redirect', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const browser = stack.bff.browser({ referer: `${stack.bff.url}/gallery` })
  await signIn(browser, { user: 'bob' })
  const first = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(first.status, 403)
  t.equal(first.json().error, 'insufficient_scope')
  t.same(first.json().required_scopes, ['upload'])
  const reauthorize = new URL(first.json().reauthorize_url, stack.bff.url)
  t.equal(reauthorize.pathname, '/auth/login')
  t.equal(reauthorize.searchParams.get('scope'), 'basic user.info upload')
  t.equal(reauthorize.searchParams.get('return_to'), '/gallery')

  const { callback } = await signIn(browser, { user: 'bob', loginPath: first.json().reauthorize_url })
  t.equal(callback.location, '/gallery')
  const second = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(second.status, 403)
  t.equal(second.json().error, 'scope_not_granted')
  t.notOk(second.json().reauthorize_url, 'no further redirect offered')
  t.same((await browser.get('/auth/session')).json().scopes, ['basic', 'user.info'])
  const third = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(third.json().error, 'scope_not_granted', 'stays so: no loop')

  // Signing in afresh (no added scope) lifts the memory of the refusal.
  await browser.post('/auth/logout')
  await signIn(browser, { user: 'bob' })
  t.equal((await browser.post('/uploads/register', { folder_id: 0 })).json().error, 'insufficient_scope')
})

t.test('alice with basic user.info: insufficient_scope, re-authorize, then it works and keeps her scopes', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  const first = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(first.json().error, 'insufficient_scope')
  await signIn(browser, { loginPath: first.json().reauthorize_url })
  const second = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(second.status, 200)
  t.same((await browser.get('/auth/session')).json().scopes, ['basic', 'user.info', 'upload'])
})
