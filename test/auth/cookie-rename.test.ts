// The session cookie was __Host-media-bff before 0.2.0 and is __Host-Http-media-bff since (RFC
// 10017's prefix: only a server sets it). During a rolling upgrade both versions must read every
// session: a browser holding only the old name stays signed in and is sent today's name too, and
// whenever 0.2.0 sets or clears the session cookie it does so under the old name as well, for the
// 0.1.0 replicas still running (plugins/previous-cookie-name.ts).
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { consent, onServer, startLogin } from '../helpers/sign-in.js'
import { parseSetCookie } from '../helpers/http-client.js'

t.test('a session under the name before 0.2.0 is read and sent back under both names', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1' }, publicUrl: 'https://bff.example' })
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
  t.match(set.find((cookie) => cookie.name === '__Host-media-bff'), { value, attributes: { secure: true, httponly: true, path: '/' } }, 'and under the old one, for 0.1.0 replicas')
  t.equal((await browser.get('/auth/session')).json().authenticated, true)

  const signIn = await browser.get(onServer(browser, await consent(browser, await startLogin(browser))))
  const after = lastOfEach(signIn.setCookies)
  t.ok(after.get('__Host-Http-media-bff'), 'a new sign-in sets today\'s name')
  t.equal(after.get('__Host-media-bff'), after.get('__Host-Http-media-bff'), 'and the old one, to the same session')
  t.not(after.get('__Host-Http-media-bff'), value, 'a new session id')
  const logout = lastOfEach((await browser.fetch('POST', '/auth/logout', { headers: { 'x-csrf': '1' } })).setCookies)
  t.same([logout.get('__Host-Http-media-bff'), logout.get('__Host-media-bff')], ['', ''], 'signing out clears both')
  const forged = stack.bff.browser({ 'x-forwarded-proto': 'https', cookie: '__Host-media-bff=forged.value' })
  t.equal((await forged.get('/auth/session')).json().authenticated, false, 'the old name grants nothing a new one would not')
})

/** What the browser keeps of each cookie an answer sets: the last value given for its name. */
function lastOfEach (setCookies: string[]): Map<string, string> {
  return new Map(setCookies.map(parseSetCookie).map((cookie) => [cookie.name, cookie.value]))
}
