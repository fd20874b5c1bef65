// Anyone can bring a callback with a valid sealed transaction (from their own GET /auth/login) and
// a made-up code, and each costs a call to the token endpoint. Those code exchanges have a pool of
// their own (plugins/media.ts): a flood of them against a slow token endpoint waits for that pool,
// never for the connections that a signed-in user's registrations and finishes need.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { parseSetCookie } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'

/** More than the media client's 64 connections, which the exchanges once shared. */
const CALLBACKS = 72
const TOKEN_DELAY_MS = 2000

t.test('a flood of made-up codes against a slow token endpoint does not hold up registrations', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1', OAUTH_SCOPES: 'basic user.info upload', LOG_LEVEL: 'warn' } })
  t.teardown(stack.close)
  const alice = stack.bff.browser()
  await signIn(alice)

  // Each from an address of its own, so no per-address limit stands in the way.
  const pending = await Promise.all(Array.from({ length: CALLBACKS }, async (_, i) => {
    const browser = stack.bff.browser({ 'x-forwarded-for': `10.9.${i}.1` })
    const login = await browser.get('/auth/login')
    const state = new URL(login.location ?? '').searchParams.get('state') ?? ''
    t.ok(login.setCookies.map(parseSetCookie).some((cookie) => cookie.name.includes('-login-')), 'a sealed transaction')
    return { browser, state }
  }))
  stack.emulator.injectFault({ endpoint: 'token', delayMs: TOKEN_DELAY_MS })
  t.teardown(() => { stack.emulator.clearFaults() })
  let firstCallbackDone = Infinity
  const callbacks = Promise.all(pending.map(async ({ browser, state }, i) => {
    const answer = await browser.get(`/auth/callback?code=made-up-${i}&state=${encodeURIComponent(state)}`)
    firstCallbackDone = Math.min(firstCallbackDone, performance.now())
    return answer
  }))
  // Time for every callback to reach the token endpoint, as far as media-bff lets it.
  await sleep(300)

  const register = await alice.post('/uploads/register', { folder_id: 0 })
  const registered = performance.now()
  t.equal(register.status, 200, 'alice registers an upload')
  // The exchanges already waiting finish after the delay; the queued ones go through at once.
  stack.emulator.clearFaults()
  const answers = await callbacks
  t.ok(registered < firstCallbackDone, `while every code exchange was still waiting (registered ${Math.round(firstCallbackDone - registered)} ms before the first one ended)`)
  t.ok(answers.every((answer) => answer.status === 302 && /auth_error=/.test(answer.location ?? '')), 'every made-up code goes back to the site with auth_error')
})
