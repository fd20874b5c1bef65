// Rate limits (plugins/gate.ts) with the in-memory counters: sign-in and callback per client
// address, an IPv6 client being its /64; finishes per signed-in user. Small limits, no sleeps: every
// request of a test falls in one one-minute window.
import t, { type Test } from 'tap'
import { startStack } from '../helpers/bff.js'
import type { HttpResponse } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'
import { defaultUserInputs } from '../../emulator/fixture-users.js'

function assertRateLimited (t: Test, answer: HttpResponse, what: string): void {
  t.equal(answer.status, 429, `${what}: 429`)
  t.same(answer.json(), { error: 'rate_limited', message: answer.json().message }, `${what}: the contract's body and nothing else`)
  t.match(answer.json().message, /Too many requests/)
  const retryAfter = Number(answer.headers['retry-after'])
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${what}: Retry-After in whole seconds within the window (${String(answer.headers['retry-after'])})`)
  t.same(Object.keys(answer.headers).filter((name) => name.includes('ratelimit')), [], `${what}: no X-RateLimit-* headers`)
}

t.test('sign-in: one budget per client address, an IPv6 /64 counting as one address', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_LOGIN_PER_MINUTE: '2' } })
  t.teardown(stack.close)
  const from = (address: string): ReturnType<typeof stack.bff.browser> => stack.bff.browser({ 'x-forwarded-for': address })

  t.equal((await from('2001:db8:1:2::1').get('/auth/login')).status, 302)
  t.equal((await from('2001:db8:1:2:ffff:ffff:ffff:fffe').get('/auth/login')).status, 302, 'another address in the same /64')
  const limited = await from('2001:db8:1:2:abcd::9').get('/auth/login')
  assertRateLimited(t, limited, 'a third address in the same /64')
  t.notOk(limited.setCookies.some((line) => line.includes('-login-')), 'no login cookie, no transaction')

  t.equal((await from('2001:db8:1:3::1').get('/auth/login')).status, 302, 'the next /64 has its own budget')
  const callback = await from('2001:db8:1:3::2').get('/auth/callback?state=not-a-real-state&code=x')
  t.equal(callback.status, 400, 'the callback counts on the same budget (a human page for the unknown state)')
  assertRateLimited(t, await from('2001:db8:1:3::3').get('/auth/login'), 'login after login and callback from one /64')
  assertRateLimited(t, await from('2001:db8:1:3::4').get('/auth/callback?state=x&code=y'), 'callback over the limit')

  t.equal((await from('192.0.2.1').get('/auth/login')).status, 302)
  t.equal((await from('192.0.2.1').get('/auth/login')).status, 302)
  assertRateLimited(t, await from('::ffff:192.0.2.1').get('/auth/login'), 'an IPv4-mapped IPv6 address is its IPv4 address')
  t.equal((await from('192.0.2.2').get('/auth/login')).status, 302, 'IPv4 addresses count one by one')
})

t.test('finish: one budget per user, however many sign-ins they hold', async (t) => {
  // A second user with upload rights, so "another user" is really another person.
  const users = [...defaultUserInputs, { name: 'carol', scopes: ['basic', 'user.info', 'upload'] }]
  const stack = await startStack({ emulator: { users }, env: { OAUTH_SCOPES: 'basic user.info upload', RATE_LIMIT_FINISH_PER_MINUTE: '2' } })
  t.teardown(stack.close)
  const alice = stack.bff.browser()
  await signIn(alice)
  const aliceElsewhere = stack.bff.browser()
  await signIn(aliceElsewhere)
  const carol = stack.bff.browser()
  await signIn(carol, { user: 'carol' })
  const finish = '/uploads/01ARZ3NDEKTSV4RRFFQ69G5FAV/finish'
  t.equal((await alice.post(finish)).status, 404, 'a ulid this sign-in did not register')
  t.equal((await alice.post(finish)).status, 404)
  assertRateLimited(t, await alice.post(finish), 'the third finish within a minute')
  assertRateLimited(t, await aliceElsewhere.post(finish), 'the same user signed in a second time shares the budget')
  t.equal((await carol.post(finish)).status, 404, 'another user has a budget of their own')
  t.equal((await stack.bff.browser().post(finish)).status, 401, 'without a session: login_required, not counted')
  t.equal((await alice.get('/auth/session')).json().authenticated, true, 'the limited user is still signed in')
})
