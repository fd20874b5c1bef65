// The sign-in acceptance suite (issue: sign-in), run once per store backend.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import { startStack } from '../helpers/bff.js'
import { parseSetCookie } from '../helpers/http-client.js'
import { consent, onServer, signIn, startLogin } from '../helpers/sign-in.js'

export function signInSuite (t: Test, storeEnv: () => Record<string, string | undefined>): void {
  t.test('the whole flow: PKCE S256, state, exact redirect URI, scopes; session shows alice', async (t) => {
    const stack = await startStack({ env: storeEnv() })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    const authorizeUrl = await startLogin(browser, '/auth/login?return_to=/after')
    const url = new URL(authorizeUrl)
    t.equal(url.origin + url.pathname, `${stack.emulator.baseUrl}/api/oauth2/authorize`)
    t.equal(url.searchParams.get('response_type'), 'code')
    t.equal(url.searchParams.get('client_id'), stack.emulator.clientId)
    t.equal(url.searchParams.get('redirect_uri'), `${stack.bff.url}/auth/callback`)
    t.equal(url.searchParams.get('scope'), 'basic user.info')
    t.equal(url.searchParams.get('code_challenge_method'), 'S256')
    t.match(url.searchParams.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/)
    // Its issue time, 24 random bytes and a MAC (src/sign-in/login-state.ts).
    t.match(url.searchParams.get('state'), /^[0-9a-z]+\.[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{22}$/)

    const callbackUrl = await consent(browser, authorizeUrl, 'alice')
    const callback = await browser.get(onServer(browser, callbackUrl))
    t.equal(callback.status, 302)
    t.equal(callback.location, '/after')

    const session = await browser.get('/auth/session')
    t.equal(session.status, 200)
    t.same(session.json(), {
      authenticated: true,
      user: { id: session.json().user.id, name: 'Alice Example', email: 'alice@example.test' },
      tenant: 'default',
      scopes: ['basic', 'user.info'],
      expires_at: session.json().expires_at,
      idle_expires_at: session.json().idle_expires_at,
      absolute_expires_at: session.json().absolute_expires_at,
      reauth_required: false
    })
    const [expires, idle, absolute] = ['expires_at', 'idle_expires_at', 'absolute_expires_at'].map((field) => Date.parse(session.json()[field]))
    t.ok((expires ?? 0) > Date.now())
    t.equal(expires, Math.min(idle ?? 0, absolute ?? 0), 'expires_at is the earlier of the idle and the absolute timeout')
    t.ok((absolute ?? 0) - Date.now() > 11.9 * 3_600_000, `the absolute timeout is shown: 12 h from now (${session.json().absolute_expires_at})`)
    t.notMatch(session.text, /token/i, 'no token in the session answer')
  })

  t.test('the session id rotates at sign-in and the old cookie no longer authenticates', async (t) => {
    const stack = await startStack({ env: storeEnv() })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    await signIn(browser)
    const cookieName = stack.bff.config.session.cookieName
    const before = browser.cookies.get(cookieName)
    t.ok(before, 'signed in')
    // Signing in again (re-authorization) must hand out a new id and kill the old one.
    await signIn(browser, { loginPath: '/auth/login?scope=upload' })
    const after = browser.cookies.get(cookieName)
    t.ok(after)
    t.not(after, before, 'new session id')
    const stale = stack.bff.browser({ cookie: `${cookieName}=${before}` })
    t.same((await stale.get('/auth/session')).json().authenticated, false, 'old id is dead')
    t.same((await browser.get('/auth/session')).json().authenticated, true, 'new id works')
  })

  t.test('forged, replayed and expired state are refused on a human page', async (t) => {
    const stack = await startStack({ env: { ...storeEnv(), LOGIN_TIMEOUT: '1' } })
    t.teardown(stack.close)
    const browser = stack.bff.browser()

    const forged = await browser.get('/auth/callback?code=abc&state=forged-state-value')
    t.equal(forged.status, 400)
    t.match(forged.headers['content-type'], /text\/html/)
    t.match(forged.text, /expired or was already used/)

    const missing = await browser.get('/auth/callback?code=abc')
    t.equal(missing.status, 400)

    const { callbackUrl } = await signIn(browser)
    const replay = await browser.get(onServer(browser, callbackUrl))
    t.equal(replay.status, 400, 'a used state cannot be replayed')
    t.match(replay.text, /expired or was already used/)

    const late = stack.bff.browser()
    const authorizeUrl = await startLogin(late)
    const lateCallback = await consent(late, authorizeUrl)
    await sleep(1300)
    const expired = await late.get(onServer(late, lateCallback))
    t.equal(expired.status, 400, 'an expired transaction is refused')
    t.same((await late.get('/auth/session')).json().authenticated, false)
  })

  t.test('return_to must be a local path: open-redirect forms are refused', async (t) => {
    const stack = await startStack({ env: storeEnv() })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    const evil = [
      '//evil.example', '/\\evil.example', '\\\\evil.example', 'https://evil.example', 'http:evil.example',
      'javascript:alert(1)', '%2F%2Fevil.example', '/%2F%2Fevil.example', '/%5Cevil.example', '/%09/evil.example',
      '/\t/evil.example', '/\r\nLocation: https://evil.example', 'evil.example', '', ' /x', '/%252F%252Fevil.example',
      '//%09evil.example', '/\u0000x', 'data:text/html,hi', '///evil.example'
    ]
    for (const value of evil) {
      const answer = await browser.get(`/auth/login?return_to=${encodeURIComponent(value)}`)
      t.equal(answer.status, 400, `refused: ${JSON.stringify(value)}`)
      t.equal(answer.json().error, 'invalid_request')
      t.equal(answer.json().field, 'return_to')
    }
    t.ok(evil.length >= 12)
    const fine = await browser.get('/auth/login?return_to=%2Fgallery%3Ffolder%3D3')
    t.equal(fine.status, 302, 'a local path with a query is fine')
  })

  t.test('access_denied at the authorization server ends back on the site with auth_error', async (t) => {
    const stack = await startStack({ env: storeEnv() })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    const { callback } = await signIn(browser, { decision: 'deny', loginPath: '/auth/login?return_to=/upload' })
    t.equal(callback.status, 302)
    t.equal(callback.location, '/upload?auth_error=access_denied')
    t.same((await browser.get('/auth/session')).json().authenticated, false)
  })

  t.test('two tabs: two sign-ins started in one browser both complete', async (t) => {
    const stack = await startStack({ env: storeEnv() })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    const first = await startLogin(browser, '/auth/login?return_to=/one')
    const second = await startLogin(browser, '/auth/login?return_to=/two')
    const secondCallback = await consent(browser, second)
    const firstCallback = await consent(browser, first)
    const two = await browser.get(onServer(browser, secondCallback))
    t.equal(two.status, 302)
    t.equal(two.location, '/two')
    const one = await browser.get(onServer(browser, firstCallback))
    t.equal(one.status, 302)
    t.equal(one.location, '/one')
    t.same((await browser.get('/auth/session')).json().authenticated, true)
  })

  t.test('a callback replayed in another browser signs nobody in', async (t) => {
    const stack = await startStack({ env: storeEnv() })
    t.teardown(stack.close)
    const victim = stack.bff.browser()
    const authorizeUrl = await startLogin(victim)
    const callbackUrl = await consent(victim, authorizeUrl, 'alice')

    const stranger = stack.bff.browser()
    const noCookie = await stranger.get(onServer(stranger, callbackUrl))
    t.equal(noCookie.status, 400)
    t.match(noCookie.text, /started in another browser/)
    t.same((await stranger.get('/auth/session')).json().authenticated, false)

    const other = stack.bff.browser()
    await signIn(other, { user: 'bob' })
    const withSession = await other.get(onServer(other, callbackUrl))
    t.equal(withSession.status, 400)
    t.equal((await other.get('/auth/session')).json().user.name, 'Bob Example', 'still bob, not alice')

    // The replays did not burn the real sign-in.
    const real = await victim.get(onServer(victim, callbackUrl))
    t.equal(real.status, 302)
    t.equal((await victim.get('/auth/session')).json().user.name, 'Alice Example')
  })

  t.test('logout destroys the session server-side', async (t) => {
    const stack = await startStack({ env: storeEnv() })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    await signIn(browser)
    const cookieName = stack.bff.config.session.cookieName
    const cookie = browser.cookies.get(cookieName)
    const out = await browser.post('/auth/logout')
    t.equal(out.status, 200)
    t.same(out.json(), { logged_out: true })
    t.ok(out.setCookies.some((line) => line.startsWith(`${cookieName}=;`)), 'cookie cleared')
    const replay = stack.bff.browser({ cookie: `${cookieName}=${cookie}` })
    t.same((await replay.get('/auth/session')).json(), { authenticated: false, login_url: '/auth/login' })
  })

  t.test('CSRF: state-changing calls need X-CSRF and an allowed Origin', async (t) => {
    const stack = await startStack({ env: { ...storeEnv(), ALLOWED_ORIGINS: 'https://site.example' } })
    t.teardown(stack.close)
    const browser = stack.bff.browser()
    await signIn(browser)
    const noHeader = await browser.fetch('POST', '/auth/logout')
    t.equal(noHeader.status, 403)
    t.equal(noHeader.json().error, 'csrf_failed')
    const foreign = await browser.post('/auth/logout', undefined, { origin: 'https://evil.example' })
    t.equal(foreign.status, 403)
    t.equal(foreign.json().error, 'csrf_failed')
    t.same((await browser.get('/auth/session')).json().authenticated, true, 'still signed in')
    t.equal((await browser.post('/auth/logout', undefined, { origin: 'https://site.example' })).status, 200)
  })

  t.test('cookies are __Host-Http-, Secure, HttpOnly, Path=/ behind a trusted https proxy: the session SameSite=Strict, the sign-in\'s own Lax', async (t) => {
    const stack = await startStack({ env: { ...storeEnv(), TRUST_PROXY: '127.0.0.1' }, publicUrl: 'https://bff.example' })
    t.teardown(stack.close)
    const browser = stack.bff.browser({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bff.example' })
    const login = await browser.get('/auth/login')
    const loginCookie = login.setCookies.map(parseSetCookie).find((c) => c.name.startsWith('__Host-Http-media-bff-login-'))
    t.match(loginCookie?.attributes, { secure: true, httponly: true, path: '/', samesite: 'Lax' }, 'the sign-in\'s cookie is Lax: the media service\'s redirect back carries it')
    const authorizeUrl = String(login.location)
    t.equal(new URL(authorizeUrl).searchParams.get('redirect_uri'), 'https://bff.example/auth/callback')
    const callbackUrl = await consent(browser, authorizeUrl)
    const callback = await browser.get(onServer(browser, callbackUrl))
    t.equal(callback.status, 302)
    const session = callback.setCookies.map(parseSetCookie).find((c) => c.name === '__Host-Http-media-bff')
    t.ok(session, 'session cookie set with the __Host-Http- prefix')
    t.equal(session?.attributes.secure, true)
    t.equal(session?.attributes.httponly, true)
    t.equal(String(session?.attributes.samesite).toLowerCase(), 'strict')
    t.equal(session?.attributes.path, '/')
    t.notOk(session?.attributes.domain, 'no Domain attribute')
    t.same((await browser.get('/auth/session')).json().authenticated, true)
  })
}
