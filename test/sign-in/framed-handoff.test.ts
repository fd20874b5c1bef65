// A site's page shown in another site's frame (FRAME_ANCESTORS): media-bff's pages say who may
// frame them, the session cookie is SameSite=None and Partitioned (CHIPS), and a sign-in run in a
// popup for a framed page (`framed=1`) hands its session over to the frame with a one-time code
// (POST /auth/session/handoff), as the frame's cookie lives in another partition than the popup's.
// In Chromium, with third-party cookies off: test/browser/framed-site.test.ts.
import t from 'tap'
import { build } from '../helpers/build.js'
import { consent, onServer } from '../helpers/sign-in.js'
import { parseSetCookie } from '../helpers/http-client.js'
import { problemsOf, validEnv } from '../helpers/config-env.js'

import { createHash } from 'node:crypto'

const NONCE = 'AbCdEfGhIjKlMnOpQrStUv'
const HTTPS = { 'x-forwarded-proto': 'https' }
/** What the frame keeps, and what its sign-in begins with (`framed=`). */
const VERIFIER = 'v'.repeat(43)
const VERIFIER_HASH = createHash('sha256').update(VERIFIER).digest('base64url')

function handoffIn (page: string): string | undefined {
  const json = /<script type="application\/json" id="media-bff-popup">([^<]*)<\/script>/.exec(page)?.[1] ?? '{}'
  return (JSON.parse(json) as { handoff?: string }).handoff
}

t.test('a framed page\'s popup sign-in begins the frame\'s own session, handed to the frame once, with its verifier', async (t) => {
  const stack = await build(t, {
    env: { PUBLIC_URL: 'https://bff.example', TRUST_PROXY: '127.0.0.1', FRAME_ANCESTORS: 'https://cms.example' },
    emulator: { redirectUri: 'https://bff.example/auth/callback' }
  })
  // The popup carries this browser's own session (the site's partition): it is left as it is.
  const own = await stack.signedIn('alice')
  const popup = stack.browser(HTTPS)
  for (const [name, value] of own.cookies) popup.cookies.set(name, value)
  const ownCookie = own.cookies.get('__Host-Http-media-bff')
  const login = await popup.navigate(`/auth/login?popup=${NONCE}&framed=${VERIFIER_HASH}&return_to=/`)
  t.match(login.headers['content-security-policy'], /frame-ancestors 'self' https:\/\/cms\.example/, 'who may frame media-bff\'s pages')
  t.equal(login.headers['x-frame-options'], undefined, 'and no X-Frame-Options, which cannot name them')
  const done = await popup.navigate(onServer(popup, await consent(popup, login.location ?? '', 'alice')))
  t.equal(done.status, 200)
  t.notOk(done.setCookies.some((line) => line.startsWith('__Host-Http-media-bff=')), 'no session cookie in the popup\'s partition')
  t.equal((await own.get('/auth/session')).json().authenticated, true, 'the browser\'s own session is left as it was')
  const code = handoffIn(done.text)
  t.match(code, /^[A-Za-z0-9_-]{43}$/, 'the popup\'s last page carries a handoff code')

  const frame = stack.browser(HTTPS)
  t.equal((await frame.get('/auth/session')).json().authenticated, false, 'the frame is not signed in yet')
  const taken = await frame.post('/auth/session/handoff', { code, verifier: VERIFIER })
  t.equal(taken.status, 200)
  t.equal(taken.json().authenticated, true)
  const handed = taken.setCookies.map(parseSetCookie).find((cookie) => cookie.name === '__Host-Http-media-bff')
  t.match(handed?.attributes, { samesite: 'None', partitioned: true, secure: true, httponly: true, path: '/' }, 'the session cookie, Partitioned and SameSite=None, in the frame\'s partition')
  t.not(handed?.value, ownCookie, 'a session of the frame\'s own')
  t.equal((await frame.get('/auth/session')).json().user.name, 'Alice Example', 'signed in, in the frame')

  const again = await stack.browser(HTTPS).post('/auth/session/handoff', { code, verifier: VERIFIER })
  t.equal(again.status, 400, 'a code is taken once')
  t.equal(again.json().field, 'code')
  t.equal((await frame.post('/auth/session/handoff', { code: 'A'.repeat(43), verifier: VERIFIER })).status, 400, 'an unknown one')
  t.equal((await frame.post('/auth/session/handoff', { code: 'short', verifier: VERIFIER })).status, 400, 'a malformed one')
  t.equal((await frame.fetch('POST', '/auth/session/handoff', { json: { code, verifier: VERIFIER } })).status, 403, 'only a page\'s call, with X-CSRF')
})

t.test('a code without its verifier, or taken elsewhere, is worth nothing', async (t) => {
  const stack = await build(t, {
    env: { PUBLIC_URL: 'https://bff.example', TRUST_PROXY: '127.0.0.1', FRAME_ANCESTORS: 'https://cms.example' },
    emulator: { redirectUri: 'https://bff.example/auth/callback' }
  })
  const codeFrom = async (headers: Record<string, string>): Promise<string> => {
    const popup = stack.browser({ ...HTTPS, ...headers })
    const login = await popup.navigate(`/auth/login?popup=${NONCE}&framed=${VERIFIER_HASH}&return_to=/`)
    return handoffIn((await popup.navigate(onServer(popup, await consent(popup, login.location ?? '', 'alice')))).text) ?? ''
  }
  const here = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'x-forwarded-for': '203.0.113.7' }
  const code = await codeFrom(here)
  t.equal((await stack.browser({ ...HTTPS, ...here }).post('/auth/session/handoff', { code, verifier: 'w'.repeat(43) })).status, 400, 'another verifier: refused')
  t.equal((await stack.browser({ ...HTTPS, ...here }).post('/auth/session/handoff', { code, verifier: VERIFIER })).status, 400, 'and the code is spent')
  const carried = await codeFrom(here)
  t.equal((await stack.browser({ ...HTTPS, ...here, 'x-forwarded-for': '198.51.100.9' }).post('/auth/session/handoff', { code: carried, verifier: VERIFIER })).status, 400, 'from another network: refused')
  const fresh = await codeFrom(here)
  t.equal((await stack.browser({ ...HTTPS, ...here }).post('/auth/session/handoff', { code: fresh, verifier: VERIFIER })).status, 200, 'from the sign-in\'s place, with its verifier: taken')
})

t.test('no handoff for a popup that is not a frame\'s, nor without FRAME_ANCESTORS', async (t) => {
  for (const [env, path] of [[{ FRAME_ANCESTORS: 'https://cms.example' }, `/auth/login?popup=${NONCE}&return_to=/`], [{}, `/auth/login?popup=${NONCE}&framed=${VERIFIER_HASH}&return_to=/`]] as const) {
    const stack = await build(t, { env: { PUBLIC_URL: 'https://bff.example', TRUST_PROXY: '127.0.0.1', ...env }, emulator: { redirectUri: 'https://bff.example/auth/callback' } })
    const popup = stack.browser(HTTPS)
    const login = await popup.navigate(path)
    const done = await popup.navigate(onServer(popup, await consent(popup, login.location ?? '', 'alice')))
    t.equal(handoffIn(done.text), undefined, path)
  }
})

t.test('FRAME_ANCESTORS: origins, over an https PUBLIC_URL, not with device-bound sessions', async (t) => {
  t.same(problemsOf({ ...validEnv, PUBLIC_URL: 'https://bff.example', FRAME_ANCESTORS: 'https://cms.example,https://other.example' }), [])
  t.match(problemsOf({ ...validEnv, PUBLIC_URL: 'http://localhost:3000', FRAME_ANCESTORS: 'https://cms.example' }), [/^FRAME_ANCESTORS: needs an https PUBLIC_URL/])
  t.match(problemsOf({ ...validEnv, PUBLIC_URL: 'https://bff.example', FRAME_ANCESTORS: 'https://cms.example/editor' }), [/must be an origin/])
  t.match(problemsOf({ ...validEnv, PUBLIC_URL: 'https://bff.example', FRAME_ANCESTORS: 'https://cms.example', DEVICE_BOUND_SESSIONS: 'on' }), [/^FRAME_ANCESTORS: cannot be set with DEVICE_BOUND_SESSIONS=on/])
})
