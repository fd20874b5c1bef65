// Bad input for the sign-in routes: /auth/login (JSON errors), /auth/callback (a human page or a
// redirect back with auth_error: docs/reference/http-api.md, "Routes"), /auth/session and
// /auth/logout.
import { TEST_SESSION_SECRET } from '../helpers/bff.js'
import { onServer } from '../helpers/sign-in.js'
import type { HttpResponse } from '../helpers/http-client.js'
import type { BadInputStack } from './bad-input-stack.js'
import { flipSignature, signedWithOtherSecret, unknownSession } from './forged-cookies.js'
import { aliceCookie, HEADERS_TOO_LARGE, HUGE_HEADER, JSON_CSRF, postRaw, withSessionCookie, type BadInputCase } from './bad-input-case.js'

const bad = { status: 400, error: 'invalid_request' } as const
const csrf = { status: 403, error: 'csrf_failed' } as const
const signedOut = { status: 200, body: { authenticated: false, login_url: '/auth/login' } }
const loggedOut = { status: 200, body: { logged_out: true } }

const loginQuery = (name: string, query: string, expect: BadInputCase['expect'] = bad): BadInputCase =>
  ({ route: '/auth/login', name, send: async (s) => await s.browser().get(`/auth/login?${query}`), expect })
const returnTo = (value: string): string => `return_to=${encodeURIComponent(value)}`

export const loginCases: BadInputCase[] = [
  loginQuery('CRLF header injection in return_to', returnTo('/\r\nSet-Cookie: evil=1')),
  loginQuery('%-encoded CRLF inside return_to', returnTo('/%0d%0aLocation:%20https://evil.example')),
  loginQuery('%-encoded NUL in return_to', 'return_to=/%00x'),
  loginQuery('double-encoded NUL in return_to', returnTo('/%00x')),
  loginQuery('overlong UTF-8 slash in return_to', returnTo('/%C0%AF%C0%AFevil.example')),
  loginQuery('invalid percent-encoding in the query', 'return_to=%E0%A4%A'),
  loginQuery('a lone % in return_to', 'return_to=/%'),
  // U+202E and its encoded form: a bidi control is a control character (docs/reference/http-api.md,
  // "Routes": return_to never holds control characters); it can make a path read backwards wherever
  // it is shown.
  loginQuery('RTL override in return_to', returnTo('/\u202Emoc.elpmaxe-live')),
  loginQuery('%-encoded RTL override in return_to', returnTo('/%E2%80%AEmoc.elpmaxe-live')),
  // Characters beyond Latin-1 are fine in a path but must reach the Location header encoded.
  { route: '/auth/login', name: 'full-width solidus in return_to', send: async (s) => await s.loginFlow(returnTo('/\uFF0F\uFF0Fevil.example')), expect: { redirect: '/%EF%BC%8F%EF%BC%8Fevil.example' } },
  { route: '/auth/login', name: 'non-ASCII path in return_to', send: async (s) => await s.loginFlow(returnTo('/galerie/été')), expect: { redirect: '/galerie/%C3%A9t%C3%A9' } },
  loginQuery('return_to longer than 2048', returnTo(`/${'a'.repeat(3000)}`)),
  // Dot segments that the URL parser resolves into a leading "//": an open redirect if the check
  // ran only on the raw value.
  loginQuery('dot segments resolving to //evil in return_to', returnTo('/a/..//evil.example/')),
  loginQuery('encoded dot segments resolving to //evil in return_to', returnTo('/a/%2e%2E//evil.example/')),
  loginQuery('dot segment with backslash in return_to', 'return_to=/x/..%2F%2Fevil.example'),
  loginQuery('return_to given twice', 'return_to=/a&return_to=/b'),
  // A website origin of ALLOWED_ORIGINS may be returned to; exactly that origin, nothing like it.
  { route: '/auth/login', name: 'return_to on the website origin of ALLOWED_ORIGINS', send: async (s) => await s.loginFlow(returnTo('https://www.example.org/library?folder=3#f')), expect: { redirect: 'https://www.example.org/library?folder=3#f' } },
  loginQuery('return_to on an origin that only looks like the website\'s', returnTo('https://www.example.org.evil.example/x')),
  loginQuery('return_to on the website origin in capitals', returnTo('HTTPS://WWW.EXAMPLE.ORG/x')),
  loginQuery('return_to on the website origin with credentials', returnTo('https://user@www.example.org/x')),
  loginQuery('return_to on the website origin, walking out', returnTo('https://www.example.org/a/..//evil.example')),
  loginQuery('CRLF injection in scope', `scope=${encodeURIComponent('upload\r\nX-Injected: 1')}`),
  loginQuery('unknown scope', 'scope=admin'),
  loginQuery('scope longer than 256', `scope=${'a'.repeat(300)}`),
  loginQuery('CRLF injection in tenant', `tenant=${encodeURIComponent('default\r\nX-Injected: 1')}`),
  loginQuery('unknown tenant', 'tenant=other'),
  loginQuery('tenant __proto__', 'tenant=__proto__'),
  loginQuery('tenant constructor', 'tenant=constructor'),
  loginQuery('tenant longer than 64', `tenant=${'t'.repeat(65)}`)
]

/** Visits a pending sign-in's callback URL after `change` edits it. */
const callbackWith = (change: (url: URL) => void, returnPath = '/back') => async (s: BadInputStack): Promise<HttpResponse> => {
  const { browser, callbackUrl } = await s.pendingCallback(returnPath)
  change(callbackUrl)
  return await browser.get(onServer(browser, callbackUrl.href))
}
const callbackCase = (name: string, send: BadInputCase['send'], expect: BadInputCase['expect']): BadInputCase => ({ route: '/auth/callback', name, send, expect })

export const callbackCases: BadInputCase[] = [
  callbackCase('forged state', async (s) => await s.browser().get('/auth/callback?code=abc&state=forged-state-value-0123456789'), { page: 'invalid_state' }),
  callbackCase('no state', async (s) => await s.browser().get('/auth/callback?code=abc'), { page: 'invalid_state' }),
  callbackCase('a real state with its last character changed', callbackWith((url) => {
    const state = url.searchParams.get('state') ?? ''
    url.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`)
  }), { page: 'invalid_state' }),
  callbackCase('replayed state after a completed sign-in', async (s) => {
    const { browser, callbackUrl } = await s.pendingCallback()
    await browser.get(onServer(browser, callbackUrl.href))
    return await browser.get(onServer(browser, callbackUrl.href))
  }, { page: 'invalid_state' }),
  callbackCase('state started in another browser', async (s) => {
    const { callbackUrl } = await s.pendingCallback()
    const stranger = s.browser()
    return await stranger.get(onServer(stranger, callbackUrl.href))
  }, { page: 'login_csrf' }),
  callbackCase('invalid percent-encoding in state', async (s) => await s.browser().get('/auth/callback?code=abc&state=%E0%A4%A'), { page: 'invalid_state' }),
  callbackCase('%-encoded NUL state', async (s) => await s.browser().get('/auth/callback?code=abc&state=%00'), { page: 'invalid_state' }),
  callbackCase('script in error_description with a forged state', async (s) => await s.browser().get(`/auth/callback?error=access_denied&error_description=${encodeURIComponent('<script>alert(1)</script>')}&state=forged-state-value-0123456789`), { page: 'invalid_state' }),
  // Over the schema's limits: still a navigation, so still the human page, not JSON.
  callbackCase('state longer than 512', async (s) => await s.browser().get(`/auth/callback?code=abc&state=${'s'.repeat(600)}`), { page: 'invalid_state' }),
  callbackCase('code given twice', async (s) => await s.browser().get('/auth/callback?code=a&code=b&state=forged-state-value-0123456789'), { page: 'invalid_state' }),
  callbackCase('valid state without code', callbackWith((url) => { url.searchParams.delete('code') }), { redirect: '/back?auth_error=invalid_request' }),
  callbackCase('valid state with a made-up code', callbackWith((url) => { url.searchParams.set('code', 'made-up-code') }), { redirect: '/back?auth_error=token_exchange_failed' }),
  callbackCase('CRLF injection in error', callbackWith((url) => { url.searchParams.delete('code'); url.searchParams.set('error', 'x\r\nSet-Cookie: evil=1') }), { redirect: '/back?auth_error=server_error' }),
  callbackCase('script in error_description with a valid state', callbackWith((url) => {
    url.searchParams.delete('code')
    url.searchParams.set('error', 'access_denied')
    url.searchParams.set('error_description', '<script>alert(1)</script>')
  }), { redirect: '/back?auth_error=access_denied' }),
  // RFC 9207 mix-up defence: not an outage, so not "unavailable" (which invites a retry).
  callbackCase('iss of another issuer', callbackWith((url) => { url.searchParams.set('iss', 'https://evil.example') }), { redirect: '/back?auth_error=issuer_mismatch' })
]

export const sessionCases: BadInputCase[] = [
  { route: '/auth/session', name: 'alice\'s id with a flipped signature', send: async (s) => await withSessionCookie(s, flipSignature(aliceCookie(s))).get('/auth/session'), expect: signedOut },
  { route: '/auth/session', name: 'alice\'s id signed with another secret', send: async (s) => await withSessionCookie(s, signedWithOtherSecret(aliceCookie(s))).get('/auth/session'), expect: signedOut },
  { route: '/auth/session', name: 'well-signed unknown session id', send: async (s) => await withSessionCookie(s, unknownSession(TEST_SESSION_SECRET)).get('/auth/session'), expect: signedOut },
  { route: '/auth/session', name: 'unsigned session id', send: async (s) => await withSessionCookie(s, decodeURIComponent(aliceCookie(s)).split('.')[0] ?? '').get('/auth/session'), expect: signedOut },
  { route: '/auth/session', name: 'cookie value %%%', send: async (s) => await withSessionCookie(s, '%%%').get('/auth/session'), expect: signedOut },
  { route: '/auth/session', name: '8 KB cookie value', send: async (s) => await withSessionCookie(s, 'c'.repeat(8000)).get('/auth/session'), expect: signedOut },
  { route: '/auth/session', name: 'a 20 KB header', send: async (s) => await s.alice.get('/auth/session', HUGE_HEADER), expect: HEADERS_TOO_LARGE },
  { route: '/auth/session', name: 'invalid percent-encoding in the query', send: async (s) => await s.alice.get('/auth/session?x=%E0%A4%A&%'), expect: { status: 200, body: { authenticated: true } } }
]

const logout = (name: string, send: BadInputCase['send'], expect: BadInputCase['expect']): BadInputCase => ({ route: '/auth/logout', name, send, expect })

// Every row sends alice's own cookie (or a forgery of it): none may end her session.
export const logoutCases: BadInputCase[] = [
  logout('no X-CSRF', async (s) => await s.alice.fetch('POST', '/auth/logout'), csrf),
  logout('X-CSRF: 0', async (s) => await s.alice.post('/auth/logout', undefined, { 'x-csrf': '0' }), csrf),
  logout('empty X-CSRF', async (s) => await s.alice.post('/auth/logout', undefined, { 'x-csrf': '' }), csrf),
  logout('foreign Origin', async (s) => await s.alice.post('/auth/logout', undefined, { origin: 'https://evil.example' }), csrf),
  logout('Origin: null', async (s) => await s.alice.post('/auth/logout', undefined, { origin: 'null' }), csrf),
  logout('GET (a link or an <img> cannot sign anyone out)', async (s) => await s.alice.get('/auth/logout'), { status: 404, error: 'not_found' }),
  logout('malformed JSON body', async (s) => await postRaw(s.alice, '/auth/logout', '{"a":'), bad),
  logout('form-urlencoded body', async (s) => await postRaw(s.alice, '/auth/logout', 'a=1', { 'x-csrf': '1', 'content-type': 'application/x-www-form-urlencoded' }), bad),
  logout('body over BODY_LIMIT', async (s) => await postRaw(s.alice, '/auth/logout', JSON.stringify({ pad: 'x'.repeat(20_000) }), JSON_CSRF), { status: 413, error: 'payload_too_large' }),
  logout('alice\'s id with a flipped signature', async (s) => await withSessionCookie(s, flipSignature(aliceCookie(s))).post('/auth/logout'), loggedOut),
  logout('alice\'s id signed with another secret', async (s) => await withSessionCookie(s, signedWithOtherSecret(aliceCookie(s))).post('/auth/logout'), loggedOut)
]
