// A sign-in run in a popup (`popup=<nonce>` on /auth/login; src/pages/popup-page.ts): its first
// and last answers keep the popup's opener (Cross-Origin-Opener-Policy unsafe-none), and its last
// page, instead of a redirect, tells the page that opened it how it ended (by the nonce, to the
// origin the sign-in was to come back to) and closes itself, holding no token, code or cookie.
// What the browser makes of it, in Chromium: test/browser/popup-consent.test.ts.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { consent, onServer } from '../helpers/sign-in.js'
import { issuedTokens } from '../helpers/issued-tokens.js'

const NONCE = 'AbCdEfGhIjKlMnOpQrStUv'
const SITE = 'https://app.site.example'

function resultIn (page: string): Record<string, unknown> {
  const json = /<script type="application\/json" id="media-bff-popup">([^<]*)<\/script>/.exec(page)?.[1]
  if (json === undefined) throw new Error(`no result in ${page}`)
  return JSON.parse(json) as Record<string, unknown>
}

t.test('approved in a popup: a page that tells the opener, signed in, no token in it', async (t) => {
  const stack = await startStack({ env: { ALLOWED_ORIGINS: SITE } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const login = await browser.navigate(`/auth/login?popup=${NONCE}&return_to=${encodeURIComponent(`${SITE}/editor?doc=3`)}`)
  t.equal(login.status, 302)
  t.equal(login.headers['cross-origin-opener-policy'], 'unsafe-none', 'the popup keeps its opener')
  const callbackUrl = await consent(browser, login.location ?? '', 'alice')
  const { searchParams } = new URL(callbackUrl)
  const done = await browser.navigate(onServer(browser, callbackUrl))
  t.equal(done.status, 200, 'a page, not a redirect')
  t.match(done.headers['content-type'], /^text\/html/)
  t.equal(done.headers['cross-origin-opener-policy'], 'unsafe-none')
  t.equal(done.headers['cache-control'], 'no-store')
  t.same(resultIn(done.text), { nonce: NONCE, targetOrigin: SITE, outcome: 'signed_in' }, 'to the return target\'s origin only')
  t.match(done.text, '<script src="/auth/popup.js"></script>')
  t.ok(done.setCookies.some((line) => line.startsWith(`${stack.bff.config.session.cookieName}=`)), 'signed in')
  t.equal((await browser.get('/auth/session')).json().authenticated, true)
  const tokens = await issuedTokens(stack.emulator.baseUrl)
  for (const secret of [...tokens.access, ...tokens.refresh, searchParams.get('code') ?? 'no code', searchParams.get('state') ?? 'no state']) t.notMatch(done.text, secret, 'no token, code or state in the page')
  const script = await browser.navigate('/auth/popup.js')
  t.equal(script.status, 200)
  t.match(script.headers['content-type'], /^text\/javascript/)
  t.match(script.text, 'window.opener.postMessage(message, result.targetOrigin)', 'to that origin alone')
})

t.test('refused in a popup: the page says so; a plain sign-in still goes back; a nonce must look like one', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const login = await browser.navigate(`/auth/login?popup=${NONCE}&return_to=/library`)
  const done = await browser.navigate(onServer(browser, await consent(browser, login.location ?? '', 'alice', 'deny')))
  t.equal(done.status, 200)
  t.same(resultIn(done.text), { nonce: NONCE, targetOrigin: stack.bff.url, outcome: 'error', error: 'access_denied' })
  const plain = await browser.navigate('/auth/login?return_to=/library')
  t.equal(plain.headers['cross-origin-opener-policy'], 'same-origin-allow-popups', 'without popup, the usual policy')
  const back = await browser.navigate(onServer(browser, await consent(browser, plain.location ?? '', 'alice')))
  t.equal(back.status, 302)
  t.equal(back.location, '/library')
  for (const nonce of ['short', 'has spaces in it........', `${'x'.repeat(65)}`, '<script>alert(1)</script>xxxxxxxx']) {
    t.equal((await browser.navigate(`/auth/login?popup=${encodeURIComponent(nonce)}`)).status, 400, `refused: ${nonce}`)
  }
})
