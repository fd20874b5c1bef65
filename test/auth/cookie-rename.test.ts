// The session cookie was __Host-media-bff before 0.2.0 and is __Host-Http-media-bff since (RFC
// 10017's prefix: only a server sets it). During a rolling upgrade from 0.1.0
// (ROLLING_UPGRADE_FROM_0_1=on) both versions must read every session: a browser holding the old
// name stays signed in and is sent today's name too, the old name wins when the two differ (a
// 0.1.0 replica wrote last), and whenever 0.2.0 sets or clears the session cookie it does so
// under the old name as well, Lax as 0.1.0 set it (plugins/previous-cookie-name.ts). Without the
// switch the old name means nothing: a page's script could have set it.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { consent, onServer, startLogin } from '../helpers/sign-in.js'
import { parseSetCookie } from '../helpers/http-client.js'

t.test('a session under the name before 0.2.0 is read and sent back under both names', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1', ROLLING_UPGRADE_FROM_0_1: 'on' }, publicUrl: 'https://bff.example' })
  t.teardown(stack.close)
  const browser = stack.bff.browser({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bff.example' })
  const callbackUrl = await consent(browser, await startLogin(browser))
  await browser.get(onServer(browser, callbackUrl))
  const value = browser.cookies.get('__Host-Http-media-bff')
  t.ok(value, 'signed in under today\'s name')
  // As a browser that signed in before the upgrade holds it.
  browser.cookies.delete('__Host-Http-media-bff')
  browser.cookies.set('__Host-media-bff', value ?? '')

  const answer = await browser.get('/auth/session')
  t.equal(answer.json().authenticated, true, 'still signed in')
  const set = answer.setCookies.map(parseSetCookie)
  t.match(set.find((cookie) => cookie.name === '__Host-Http-media-bff'), { value, attributes: { secure: true, httponly: true, path: '/', samesite: 'Strict' } }, 'the same session under today\'s name')
  t.match(set.find((cookie) => cookie.name === '__Host-media-bff'), { value, attributes: { secure: true, httponly: true, path: '/', samesite: 'Lax' } }, 'and under the old one, Lax as 0.1.0 set it, for 0.1.0 replicas')
  t.equal((await browser.get('/auth/session')).json().authenticated, true)

  const signIn = await browser.get(onServer(browser, await consent(browser, await startLogin(browser))))
  const after = lastOfEach(signIn.setCookies)
  t.ok(after.get('__Host-Http-media-bff'), 'a new sign-in sets today\'s name')
  t.equal(after.get('__Host-media-bff'), after.get('__Host-Http-media-bff'), 'and the old one, to the same session')
  t.not(after.get('__Host-Http-media-bff'), value, 'a new session id')
  const logout = lastOfEach((await browser.fetch('POST', '/auth/logout', { headers: { 'x-csrf': '1' } })).setCookies)
  t.same([logout.get('__Host-Http-media-bff'), logout.get('__Host-media-bff')], ['', ''], 'signing out clears both')
  // A sign-in a 0.1.0 replica completed: it wrote the old name only, so the two differ.
  const other = stack.bff.browser({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bff.example' })
  await other.get(onServer(other, await consent(other, await startLogin(other), 'bob')))
  const bobs = other.cookies.get('__Host-Http-media-bff') ?? ''
  browser.cookies.set('__Host-Http-media-bff', after.get('__Host-Http-media-bff') ?? '')
  browser.cookies.set('__Host-media-bff', bobs)
  t.match((await browser.get('/auth/session')).json(), { authenticated: true, user: { name: 'Bob Example' } }, 'the old name wins when they differ: 0.1.0 wrote last')

  const forged = stack.bff.browser({ 'x-forwarded-proto': 'https', cookie: '__Host-media-bff=forged.value' })
  t.equal((await forged.get('/auth/session')).json().authenticated, false, 'the old name grants nothing a new one would not')
})

/** What the browser keeps of each cookie an answer sets: the last value given for its name. */
function lastOfEach (setCookies: string[]): Map<string, string> {
  return new Map(setCookies.map(parseSetCookie).map((cookie) => [cookie.name, cookie.value]))
}

t.test('without ROLLING_UPGRADE_FROM_0_1 the old name means nothing: a script could have planted it', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1' }, publicUrl: 'https://bff.example' })
  t.teardown(stack.close)
  const attacker = stack.bff.browser({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bff.example' })
  await attacker.get(onServer(attacker, await consent(attacker, await startLogin(attacker), 'bob')))
  const planted = attacker.cookies.get('__Host-Http-media-bff') ?? ''
  const victim = stack.bff.browser({ 'x-forwarded-proto': 'https', cookie: `__Host-media-bff=${planted}` })
  const answer = await victim.get('/auth/session')
  t.equal(answer.json().authenticated, false, 'a valid session under the old name signs nobody in')
  t.same(answer.setCookies.map(parseSetCookie).filter((cookie) => cookie.name.endsWith('media-bff')), [], 'and is not promoted to the server\'s own name')
})
