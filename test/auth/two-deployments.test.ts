// Two deployments of media-bff on one site (two BASE_PATHs behind one proxy, say) share one
// cookie jar: cookies are kept per host, whatever the path or port, and `__Host-` cookies must be
// Path=/. SESSION_COOKIE_NAME keeps them apart: each deployment's session, and its sign-in's own
// cookies, under names of its own, so signing in or out of one leaves the other as it was. With
// the same name (the default) the second sign-in replaces the first's cookie, which is why the
// deploy guide asks for a name each.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import type { Browser } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'

/** Two browsers of one jar: after each step, the other sees what this one's jar now holds. */
function oneJar (a: Browser, b: Browser): (from: Browser) => void {
  return (from) => {
    const to = from === a ? b : a
    to.cookies.clear()
    for (const [name, value] of from.cookies) to.cookies.set(name, value)
  }
}

const signedIn = async (browser: Browser): Promise<boolean> => (await browser.get('/auth/session')).json().authenticated === true

t.test('with a name each, two deployments on one host keep their own sessions', async (t) => {
  const first = await startStack({ env: { SESSION_COOKIE_NAME: 'media-bff-photos' } })
  t.teardown(first.close)
  const second = await startStack({ env: { SESSION_COOKIE_NAME: 'media-bff-archive' } })
  t.teardown(second.close)
  const [a, b] = [first.bff.browser(), second.bff.browser()]
  const share = oneJar(a, b)

  t.equal((await signIn(a)).callback.status, 302)
  share(a)
  t.equal((await signIn(b)).callback.status, 302)
  share(b)
  t.same([...a.cookies.keys()].filter((name) => !name.includes('-login-')).sort(), ['media-bff-archive', 'media-bff-photos'], 'one jar, both sessions')
  t.ok(await signedIn(a), 'the first is still signed in after the second sign-in')
  t.ok(await signedIn(b))

  t.equal((await b.post('/auth/logout')).status, 200)
  share(b)
  t.ok(await signedIn(a), 'signing out of the second leaves the first')
  t.notOk(await signedIn(b))
})

t.test('with the same name, the second sign-in takes the first one\'s cookie', async (t) => {
  const first = await startStack()
  t.teardown(first.close)
  const second = await startStack()
  t.teardown(second.close)
  const [a, b] = [first.bff.browser(), second.bff.browser()]
  const share = oneJar(a, b)
  await signIn(a)
  share(a)
  await signIn(b)
  share(b)
  t.notOk(await signedIn(a), 'the first deployment\'s session is gone from the jar')
})

t.test('a name is checked against the cookie prefixes: over https it always gets __Host-Http-', async (t) => {
  const stack = await startStack({ env: { SESSION_COOKIE_NAME: '__Host-media-bff-photos', TRUST_PROXY: '127.0.0.1' }, publicUrl: 'https://photos.example' })
  t.teardown(stack.close)
  const login = await stack.bff.browser({ 'x-forwarded-proto': 'https' }).navigate('/auth/login')
  const cookies = ([] as string[]).concat(login.headers['set-cookie'] ?? [])
  t.ok(cookies.length > 0 && cookies.every((cookie) => cookie.startsWith('__Host-Http-media-bff-photos-login-')), 'the name\'s own prefix is replaced by the one media-bff needs')
  t.ok(cookies.every((cookie) => /; Path=\//.test(cookie) && /; Secure/.test(cookie) && !/; Domain=/i.test(cookie)), 'Path=/, Secure, no Domain: what the prefix demands')
})
