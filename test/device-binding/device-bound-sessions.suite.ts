// A walk through device-bound sessions (DEVICE_BOUND_SESSIONS) with a client doing what Chrome
// does (test/helpers/dbsc-browser.ts), once per store (device-bound-memory.test.ts,
// device-bound-redis.test.ts; on Redis across two instances): the browser binds its session to
// its key; a thief's copy of the long-lived cookie is refused; a proof from another key is
// refused, and so is a second binding; the registered key renews the short-lived cookie, on
// whichever instance it asks; a proof is taken once; sign-out ends the binding.
import type { Test } from 'tap'
import { startBff, startStack, testTokenKey, type TestBff } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { DbscBrowser, sfString, type DeviceSession } from '../helpers/dbsc-browser.js'
import type { Browser } from '../helpers/http-client.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/145.0.0.0 Safari/537.36'

export function deviceBoundSuite (t: Test, storeEnv: () => Record<string, string>, replicas: 1 | 2): void {
  const stackWith = async (t: Test) => {
    const shared = { DEVICE_BOUND_SESSIONS: 'on', OAUTH_SCOPES: 'basic user.info upload', ...storeEnv(), TOKEN_KEYS: testTokenKey() }
    const stack = await startStack({ env: shared })
    t.teardown(stack.close)
    let second: TestBff = stack.bff
    if (replicas === 2) {
      second = await startBff(stack.emulator, shared)
      t.teardown(second.close)
    }
    const audits = (event: string): Array<Record<string, unknown>> => [...stack.bff.logs, ...(second === stack.bff ? [] : second.logs)]
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.audit === event)
    return { ...stack, second, audits }
  }
  const signedInChrome = async (browser: Browser): Promise<DbscBrowser> => {
    const { callback } = await signIn(browser)
    if (callback.status !== 302) throw new Error(`sign-in answered ${callback.status}`)
    return new DbscBrowser(browser)
  }
  const copyOf = (from: Browser, into: Browser, names: readonly string[]): Browser => {
    for (const name of names) {
      const value = from.cookies.get(name)
      if (value !== undefined) into.cookies.set(name, value)
    }
    return into
  }

  t.test('a session bound to its browser\'s key: the copied cookie is refused, the key renews', async (t) => {
    const { bff, second, audits } = await stackWith(t)
    const sessionCookie = bff.config.session.cookieName
    const boundCookie = `${sessionCookie}-bound`
    const alice = await signedInChrome(bff.browser({ 'user-agent': CHROME }))

    // Signed in, not bound yet: the page's first look at the session offers the binding.
    const first = await alice.call('GET', '/auth/session')
    t.equal(first.json().authenticated, true)
    t.match(first.headers['secure-session-registration'], /^\(ES256 RS256\);path="\/auth\/device\/register";challenge="[^"]+"$/, 'offered: ES256 first, where, and a challenge')
    t.same(alice.exchanges, [{ step: 'register', status: 200 }], 'the browser registered its key')
    const session = alice.session
    t.ok(session, 'and keeps the session instructions')
    t.equal(session?.cookieName, boundCookie)
    t.equal(session?.refreshUrl, '/auth/device/refresh')
    t.ok(alice.browser.cookies.has(boundCookie), 'with the short-lived cookie')
    t.equal(audits('device_bound').length, 1, 'recorded')
    t.equal(audits('device_bound')[0]?.alg, 'ES256')
    t.notMatch(JSON.stringify(audits('device_bound')), alice.browser.cookies.get(sessionCookie) ?? 'no cookie', 'no cookie in the record')
    t.equal((await alice.call('GET', '/auth/session')).headers['secure-session-registration'], undefined, 'a bound session is not offered again')

    // The thief's copy of the long-lived cookie, on either instance.
    const thief = copyOf(alice.browser, second.browser({ 'user-agent': CHROME }), [sessionCookie])
    t.equal((await thief.get('/auth/session')).json().authenticated, false, 'the thief is not signed in')
    const refused = await thief.post('/uploads/register', { folder_id: 0 })
    t.equal(refused.status, 401, 'and is refused on every API call')
    t.equal(refused.json().error, 'login_required')
    t.match(audits('device_binding_refused').map((line) => line.reason), ['bound_cookie_missing', 'bound_cookie_missing'], 'each on record')
    t.equal((await alice.call('POST', '/uploads/register', { folder_id: 0 })).status, 200, 'while the browser goes on')
    const forged = copyOf(alice.browser, second.browser(), [sessionCookie])
    forged.cookies.set(boundCookie, (alice.browser.cookies.get(boundCookie) ?? '').replace(/.$/, (last) => last === 'A' ? 'B' : 'A'))
    t.equal((await forged.post('/uploads/register', { folder_id: 0 })).status, 401, 'a bound cookie altered is refused')

    // The bound cookie runs out: the browser renews it with its key, on the other instance.
    alice.via(second.url)
    alice.browser.cookies.delete(boundCookie)
    t.equal((await alice.call('POST', '/uploads/register', { folder_id: 0 })).status, 200, 'renewed and served')
    t.same(alice.exchanges.slice(1), [{ step: 'refresh', status: 200 }], 'with the challenge the last answer handed out: one exchange')
    alice.browser.cookies.delete(boundCookie)
    if (alice.session !== undefined) alice.session.challenge = undefined
    t.equal((await alice.call('GET', '/api/folders/0/contents')).status, 200)
    t.same(alice.exchanges.slice(2), [{ step: 'refresh', status: 403 }, { step: 'refresh', status: 200 }], 'without one: a 403 with a challenge, then the proof')
    t.equal(audits('device_binding_renewed').length, 2)

    // A proof from another key, on the binding's own id and a challenge it was handed.
    const other = new DbscBrowser(copyOf(alice.browser, bff.browser({ 'user-agent': CHROME }), [sessionCookie]))
    other.keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])
    other.session = { ...(alice.session ?? { id: '', refreshUrl: '', cookieName: '', rules: [] }), challenge: undefined }
    t.equal(await other.refresh(), 400, 'another key\'s proof is refused')
    t.equal(other.session, undefined, 'and that browser drops its binding')
    t.notOk(other.browser.cookies.has(boundCookie), 'no cookie for it')
    t.match(audits('device_binding_failed').map((line) => [line.reason, line.step]), [['signature', 'refresh']])

    // Nor can the thief bind the session to a key of its own, even with a registration challenge.
    const offer = /challenge="([^"]+)"/.exec(String(first.headers['secure-session-registration']))?.[1] ?? ''
    const jwk = await crypto.subtle.exportKey('jwk', other.keys.publicKey)
    const rebind = await other.browser.fetch('POST', '/auth/device/register', { headers: { 'secure-session-response': sfString(await other.sign({ alg: 'ES256', typ: 'dbsc+jwt', jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } }, { jti: offer })) } })
    t.equal(rebind.status, 400)
    t.equal(rebind.json().reason, 'already_bound', 'a bound session is never bound again')

    // A proof is taken once: the same signed challenge, sent again, gets a new challenge instead.
    const challenged = await alice.browser.fetch('POST', `${second.url}/auth/device/refresh`, { headers: { 'sec-secure-session-id': sfString(alice.session?.id ?? '') } })
    t.equal(challenged.status, 403)
    const challenge = /^"([^"]+)"/.exec(String(challenged.headers['secure-session-challenge']))?.[1] ?? ''
    const proof = sfString(await alice.sign({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti: challenge }))
    const send = async (instance: string) => await alice.browser.fetch('POST', `${instance}/auth/device/refresh`, { headers: { 'sec-secure-session-id': sfString(alice.session?.id ?? ''), 'secure-session-response': proof } })
    t.equal((await send(second.url)).status, 200, 'taken')
    const replayed = await send(bff.url)
    t.equal(replayed.status, 403, 'not twice, on any instance')
    t.notOk(replayed.setCookies.some((line) => line.startsWith(`${boundCookie}=`)), 'no cookie for a replay')

    // Signed out: the browser's next refresh ends its binding.
    t.equal((await alice.call('POST', '/auth/logout')).status, 200)
    t.equal(await alice.refresh(), 200)
    t.equal(alice.session, undefined, '{ continue: false }: the browser drops it')
    const logs = [...bff.logs, ...second.logs].join('\n')
    t.notMatch(logs, proof.slice(1, -1), 'no proof in any log line')
  })

  t.test('a copy of the long-lived cookie can do nothing of the browser\'s: keep it alive, sign it out, replace it, bind it', async (t) => {
    const { bff, second } = await stackWith(t)
    const sessionCookie = bff.config.session.cookieName
    const alice = await signedInChrome(bff.browser({ 'user-agent': CHROME }))
    await alice.call('GET', '/auth/session')
    t.ok(alice.session, 'bound')
    const copy = (): Browser => copyOf(alice.browser, second.browser({ 'user-agent': CHROME }), [sessionCookie])
    t.equal((await copy().post('/auth/session/keepalive')).json().authenticated, false, 'keep-alive: answered as signed out')
    const out = copy()
    t.equal((await out.post('/auth/logout')).status, 200, 'sign-out: the copy forgets its cookie')
    t.notOk(out.cookies.has(sessionCookie))
    t.equal((await alice.call('GET', '/auth/session')).json().authenticated, true, 'the browser is still signed in')
    // The emulator sends sign-ins back to the first instance (its one redirect URI).
    const thief = copyOf(alice.browser, bff.browser({ 'user-agent': CHROME }), [sessionCookie])
    const { callback } = await signIn(thief, { user: 'bob' })
    t.equal(callback.status, 302, 'the copy signs in as someone else')
    t.equal((await alice.call('GET', '/auth/session')).json().authenticated, true, 'replacing nothing of the browser\'s')
    const offered = await copyOf(alice.browser, second.browser({ 'user-agent': CHROME }), [sessionCookie]).fetch('POST', '/auth/device/register', { headers: { 'secure-session-response': '"a.b.c"' } })
    t.equal(offered.status, 400)
    t.equal(offered.json().reason, 'already_bound')
  })

  t.test('a browser that lost its key signs in again, unbound, and binds anew', async (t) => {
    const { bff, second } = await stackWith(t)
    const boundCookie = `${bff.config.session.cookieName}-bound`
    const alice = await signedInChrome(bff.browser({ 'user-agent': CHROME }))
    await alice.call('GET', '/auth/session')
    const lost = alice.session?.id
    // The key is gone (site data cleared, the TPM reset): the browser has no binding, nor its cookie.
    alice.session = undefined
    alice.keys = undefined
    alice.browser.cookies.delete(boundCookie)
    alice.via(second.url)
    t.equal((await alice.call('POST', '/uploads/register', { folder_id: 0 })).status, 401, 'its calls are refused')
    const { callback } = await signIn(alice.browser)
    t.equal(callback.status, 302)
    const fresh = await alice.call('GET', '/auth/session')
    t.equal(fresh.json().authenticated, true, 'signed in again')
    t.type(fresh.headers['secure-session-registration'], 'string', 'unbound: the new session is offered a binding')
    const bound = alice.session as DeviceSession | undefined
    t.ok(bound !== undefined && bound.id !== lost, 'and bound to the new key')
    t.equal((await alice.call('POST', '/uploads/register', { folder_id: 0 })).status, 200)
  })

  t.test('a registration from another device than the sign-in is refused', async (t) => {
    const { bff } = await stackWith(t)
    const alice = await signedInChrome(bff.browser({ 'user-agent': CHROME }))
    const offer = (await alice.browser.get('/auth/session')).headers['secure-session-registration']
    t.type(offer, 'string')
    const elsewhere = new DbscBrowser(copyOf(alice.browser, bff.browser({ 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' }), [bff.config.session.cookieName]))
    await elsewhere.afterResponse({ status: 200, headers: { 'secure-session-registration': offer }, text: '', json: () => ({}), location: undefined, setCookies: [] })
    t.same(elsewhere.exchanges, [{ step: 'register', status: 400 }])
    t.equal(elsewhere.session, undefined)
  })

  t.test('a browser without DBSC works as before', async (t) => {
    const { bff } = await stackWith(t)
    const plain = bff.browser()
    await signIn(plain)
    const answer = await plain.get('/auth/session')
    t.equal(answer.json().authenticated, true)
    t.type(answer.headers['secure-session-registration'], 'string', 'offered, and ignored')
    t.equal((await plain.post('/uploads/register', { folder_id: 0 })).status, 200, 'an unbound session needs no bound cookie')
  })
}
