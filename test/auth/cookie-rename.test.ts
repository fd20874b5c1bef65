// The session cookie was __Host-media-bff before 0.2.0 and is __Host-Http-media-bff since (RFC
// 10017's prefix: only a server sets it). A browser still holding the old name during and after
// the upgrade stays signed in: its cookie is read as today's, sent back under today's name and
// cleared under the old one; from then on the browser holds only the new one.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { consent, onServer, startLogin } from '../helpers/sign-in.js'
import { parseSetCookie } from '../helpers/http-client.js'

t.test('a session under the name before 0.2.0 is read, renamed and the old cookie cleared', async (t) => {
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
  t.match(set.find((cookie) => cookie.name === '__Host-media-bff'), { value: '', attributes: { secure: true, path: '/' } }, 'the old one cleared')
  t.same([...browser.cookies.keys()].filter((name) => name.startsWith('__Host-media-bff')), [], 'the browser keeps only the new name')
  t.equal((await browser.get('/auth/session')).json().authenticated, true)

  const forged = stack.bff.browser({ 'x-forwarded-proto': 'https', cookie: '__Host-media-bff=forged.value' })
  t.equal((await forged.get('/auth/session')).json().authenticated, false, 'the old name grants nothing a new one would not')
})
