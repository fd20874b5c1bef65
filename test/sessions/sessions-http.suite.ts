// GET /auth/sessions, DELETE /auth/sessions/:id, POST /auth/sessions/end-others and the operator's
// lever over HTTP, once per store backend (sessions-memory.test.ts, sessions-redis.test.ts).
import type { Test } from 'tap'
import { startBff, startStack, testTokenKey } from '../helpers/bff.js'
import type { Browser } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'
export const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklmnop'

export function sessionsSuite (t: Test, storeEnv: () => Record<string, string>): void {
  const stackWith = async (t: Test, env: Record<string, string> = {}) => {
    // What another instance must share with this one to serve its sessions: the store and the keys.
    const shared = { TRUST_PROXY: '127.0.0.1', OAUTH_SCOPES: 'basic user.info upload', ...storeEnv(), TOKEN_KEYS: testTokenKey() }
    const stack = await startStack({ env: { ...shared, ...env } })
    t.teardown(stack.close)
    const device = (userAgent: string, address: string, instance = stack.bff): Browser => instance.browser({ 'user-agent': userAgent, 'x-forwarded-for': address })
    /** A second instance beside the first, on the same store with the same keys. */
    const secondInstance = async () => {
      const second = await startBff(stack.emulator, shared)
      t.teardown(second.close)
      return second
    }
    return { ...stack, device, secondInstance }
  }
  const signedIn = async (browser: Browser, user = 'alice'): Promise<Browser> => {
    const { callback } = await signIn(browser, { user })
    if (callback.status !== 302) throw new Error(`sign-in answered ${callback.status}`)
    return browser
  }
  const sessionsOf = async (browser: Browser) => (await browser.get('/auth/sessions')).json().sessions as Array<Record<string, unknown>>

  t.test('a person sees their sessions: this one marked, devices and networks, no cookie ids', async (t) => {
    const { device } = await stackWith(t)
    const office = await signedIn(device(FIREFOX_LINUX, '203.0.113.77'))
    const phone = await signedIn(device(SAFARI_IPHONE, '2001:db8:1234:5678::9'))
    await signedIn(device(FIREFOX_LINUX, '198.51.100.4'), 'bob')
    const answer = await office.get('/auth/sessions')
    t.equal(answer.status, 200)
    t.equal(answer.headers['cache-control'], 'no-store')
    const listed = answer.json().sessions as Array<Record<string, unknown>>
    t.equal(listed.length, 2, 'alice\'s two, not bob\'s')
    const mine = listed.find((session) => session.current === true)
    t.equal(mine?.device, 'Firefox on Linux')
    t.equal(mine?.network, '203.0.113.0/24')
    const other = listed.find((session) => session.current === false)
    t.equal(other?.device, 'Safari on iPhone')
    t.equal(other?.network, '2001:db8:1234::/48')
    t.ok(listed.every((session) => typeof session.id === 'string' && !Number.isNaN(Date.parse(String(session.created_at))) && !Number.isNaN(Date.parse(String(session.last_active_at)))))
    const cookieValues = [...office.cookies.values(), ...phone.cookies.values()].map(decodeURIComponent)
    t.notOk(listed.some((session) => cookieValues.some((value) => value.includes(String(session.id)))), 'no id is, or is in, a cookie')
    t.equal((await sessionsOf(phone)).find((session) => session.current === true)?.id, other?.id, 'each marks its own')
  })

  t.test('ending another session: its cookie is dead on its next request, on another instance too', async (t) => {
    const stack = await stackWith(t)
    const second = await stack.secondInstance()
    const office = await signedIn(stack.device(FIREFOX_LINUX, '203.0.113.77'))
    const laptop = await signedIn(stack.device(SAFARI_IPHONE, '203.0.113.78'))
    const laptopId = (await sessionsOf(laptop)).find((session) => session.current === true)?.id
    // The same cookie, presented to the other instance: it serves the session first, so it holds
    // a copy of it when the ending comes (src/sessions/session-core.ts).
    const elsewhere = second.browser()
    for (const [name, value] of laptop.cookies) elsewhere.cookies.set(name, value)
    const shared = stack.bff.config.redisUrl !== undefined
    if (shared) t.equal((await elsewhere.get('/auth/session')).json().authenticated, true, 'another instance serves it')
    const ended = await office.fetch('DELETE', `/auth/sessions/${String(laptopId)}`, { headers: { 'x-csrf': '1' } })
    t.equal(ended.status, 200)
    t.same(ended.json(), { ended: 1, signed_out: false })
    if (shared) {
      t.equal((await elsewhere.get('/auth/session')).json().authenticated, false, 'and sees it ended on its next request')
      t.equal((await elsewhere.post('/uploads/register', { folder_id: 0 })).status, 401, 'its grant with it')
    }
    const refused = await laptop.post('/uploads/register', { folder_id: 0 })
    t.equal(refused.status, 401, 'its next call is refused')
    t.equal(refused.json().error, 'login_required')
    t.equal((await laptop.get('/auth/session')).json().authenticated, false)
    t.equal((await sessionsOf(office)).length, 1, 'the list shows the one left')
    t.equal((await office.get('/auth/session')).json().authenticated, true, 'the caller is still signed in')
    const again = await office.fetch('DELETE', `/auth/sessions/${String(laptopId)}`, { headers: { 'x-csrf': '1' } })
    t.equal(again.status, 404, 'ending it again: not found')
    t.equal(again.json().error, 'not_found')
  })

  t.test('ending this session signs this browser out; ending others keeps it', async (t) => {
    const { device } = await stackWith(t)
    const here = await signedIn(device(FIREFOX_LINUX, '203.0.113.77'))
    const others = [await signedIn(device(SAFARI_IPHONE, '203.0.113.78')), await signedIn(device(FIREFOX_LINUX, '198.51.100.1'))]
    const endOthers = await here.post('/auth/sessions/end-others')
    t.equal(endOthers.status, 200)
    t.same(endOthers.json(), { ended: 2 })
    for (const other of others) t.equal((await other.get('/auth/session')).json().authenticated, false, 'the others are signed out')
    t.equal((await here.get('/auth/session')).json().authenticated, true, 'this one is not')
    const mine = (await sessionsOf(here))[0]?.id
    const own = await here.fetch('DELETE', `/auth/sessions/${String(mine)}`, { headers: { 'x-csrf': '1' } })
    t.same(own.json(), { ended: 1, signed_out: true })
    t.ok(own.setCookies.some((line) => /^[^=]*media-bff=;/.test(line)), 'its cookie is cleared')
    t.equal((await here.get('/auth/session')).json().authenticated, false)
  })

  t.test('another person\'s session cannot be ended; the writes need X-CSRF and an allowed origin', async (t) => {
    const { device } = await stackWith(t)
    const alice = await signedIn(device(FIREFOX_LINUX, '203.0.113.77'))
    const bob = await signedIn(device(FIREFOX_LINUX, '198.51.100.4'), 'bob')
    const aliceId = (await sessionsOf(alice))[0]?.id
    t.equal((await bob.fetch('DELETE', `/auth/sessions/${String(aliceId)}`, { headers: { 'x-csrf': '1' } })).status, 404, 'bob cannot end alice\'s')
    t.equal((await bob.post('/auth/sessions/end-others')).json().ended, 0, 'nor does end-others reach her')
    t.equal((await alice.get('/auth/session')).json().authenticated, true)
    t.equal((await alice.fetch('DELETE', `/auth/sessions/${String(aliceId)}`)).status, 403, 'no X-CSRF')
    t.equal((await alice.fetch('POST', '/auth/sessions/end-others')).status, 403, 'no X-CSRF')
    t.equal((await alice.post('/auth/sessions/end-others', undefined, { origin: 'https://evil.example' })).status, 403, 'a foreign Origin')
    t.equal((await alice.fetch('DELETE', '/auth/sessions/not-a-session-id', { headers: { 'x-csrf': '1' } })).status, 400, 'a malformed id')
    t.equal((await device(FIREFOX_LINUX, '192.0.2.1').get('/auth/sessions')).status, 401, 'signed out: login_required')
  })

  t.test('signing out, and signing in again in the same browser, keep the list true', async (t) => {
    const { device } = await stackWith(t)
    const office = await signedIn(device(FIREFOX_LINUX, '203.0.113.77'))
    const phone = await signedIn(device(SAFARI_IPHONE, '203.0.113.78'))
    // A re-authorization rotates the session id: still one session for this browser.
    await signIn(office, { loginPath: '/auth/login?scope=upload' })
    t.equal((await sessionsOf(phone)).length, 2, 'a re-authorization replaces its entry')
    await phone.post('/auth/logout')
    t.equal((await sessionsOf(office)).length, 1, 'a sign-out removes its entry')
  })

  // Two instances share only a Redis: this one runs in the Redis suite alone.
  if (storeEnv().REDIS_URL !== undefined) {
    t.test('a sign-out and ending the others reach another instance that holds a copy of them', async (t) => {
      const stack = await stackWith(t)
      const second = await stack.secondInstance()
      /** The browser's cookies presented to the second instance, after it has served them once. */
      const onSecond = async (browser: Browser): Promise<Browser> => {
        const there = second.browser()
        for (const [name, value] of browser.cookies) there.cookies.set(name, value)
        t.equal((await there.get('/auth/session')).json().authenticated, true, 'served there first')
        return there
      }
      const office = await signedIn(stack.device(FIREFOX_LINUX, '203.0.113.77'))
      const phone = await signedIn(stack.device(SAFARI_IPHONE, '203.0.113.78'))
      const phoneThere = await onSecond(phone)
      await phone.post('/auth/logout')
      t.equal((await phoneThere.get('/auth/session')).json().authenticated, false, 'signed out on the first, ended on the second')
      const tablet = await signedIn(stack.device(SAFARI_IPHONE, '203.0.113.79'))
      const tabletThere = await onSecond(tablet)
      t.equal((await office.post('/auth/sessions/end-others')).json().ended, 1)
      t.equal((await tabletThere.get('/auth/session')).json().authenticated, false, 'the others ended on the first, ended on the second')
      t.equal((await office.get('/auth/session')).json().authenticated, true, 'the caller is still signed in')
    })
  }

  t.test('listing is rate-limited per person', async (t) => {
    const { device } = await stackWith(t, { RATE_LIMIT_SESSIONS_PER_MINUTE: '2' })
    const office = await signedIn(device(FIREFOX_LINUX, '203.0.113.77'))
    t.same([(await office.get('/auth/sessions')).status, (await office.get('/auth/sessions')).status], [200, 200])
    const limited = await office.get('/auth/sessions')
    t.equal(limited.status, 429)
    t.ok(Number(limited.headers['retry-after']) >= 1)
  })

  t.test('the operator\'s lever: off without OPERATOR_TOKEN, 404 without it, and ends every session of one person', async (t) => {
    const off = await stackWith(t)
    const operator = (instance: typeof off.bff, headers: Record<string, string> = { authorization: `Bearer ${OPERATOR_TOKEN}` }): Browser => instance.browser({ 'x-csrf': '1', ...headers })
    t.equal((await operator(off.bff).fetch('DELETE', '/operator/users/default/alice/sessions')).status, 404, 'off by default')

    const stack = await stackWith(t, { OPERATOR_TOKEN })
    const aliceOffice = await signedIn(stack.device(FIREFOX_LINUX, '203.0.113.77'))
    const alicePhone = await signedIn(stack.device(SAFARI_IPHONE, '203.0.113.78'))
    const bob = await signedIn(stack.device(FIREFOX_LINUX, '198.51.100.4'), 'bob')
    const aliceId = String(stack.emulator.users.find((user) => user.name === 'alice')?.userId)
    const path = `/operator/users/default/${encodeURIComponent(aliceId)}/sessions`
    const wrongHeaders: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-token-0123456789-abcdefghijklmnop' }, { authorization: OPERATOR_TOKEN }]
    for (const headers of wrongHeaders) {
      const refused = await operator(stack.bff, headers).fetch('DELETE', path)
      t.equal(refused.status, 404, `refused as absent: ${JSON.stringify(headers)}`)
    }
    t.equal((await off.bff.browser({ authorization: `Bearer ${OPERATOR_TOKEN}` }).fetch('DELETE', path)).status, 403, 'with the lever off there is no route: a write to none needs X-CSRF')
    t.equal((await aliceOffice.fetch('DELETE', path, { headers: { 'x-csrf': '1' } })).status, 404, 'alice\'s own cookie is no key')
    const lever = await operator(stack.bff).fetch('DELETE', path)
    t.equal(lever.status, 200)
    t.same(lever.json(), { ended: 2 })
    for (const browser of [aliceOffice, alicePhone]) t.equal((await browser.get('/auth/session')).json().authenticated, false, 'alice is locked out')
    t.equal((await bob.get('/auth/session')).json().authenticated, true, 'bob is not')
    t.equal((await operator(stack.bff).fetch('DELETE', '/operator/users/nowhere/alice/sessions')).status, 400, 'an unknown tenant')
    const logged = stack.bff.logs.find((line) => line.includes('"audit":"operator_lever"'))
    t.match(logged, /"tenant":"default".*"person":"1".*"live":2/, 'recorded as an audit event (docs/reference/audit-events.md)')
    t.notMatch(logged, OPERATOR_TOKEN, 'without the token')
    const metrics = await stack.bff.browser().get('/metrics')
    t.match(metrics.text, /media_bff_sessions_ended_total\{reason="operator"\} 2/)
    // Bob signs out: his own ending is counted by the same path, by its own reason.
    t.equal((await bob.post('/auth/logout')).status, 200)
    t.match((await stack.bff.browser().get('/metrics')).text, /media_bff_sessions_ended_total\{reason="signed_out"\} 1/, 'a sign-out is counted as one')
  })
}
