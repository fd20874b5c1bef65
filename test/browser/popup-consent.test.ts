// Consent that never takes the page away, in real Chromium with its own popup blocker on: a page
// on another origin (one of ALLOWED_ORIGINS; test/browser/examples/popup/) signs in, allows
// uploads and makes a call that needs a permission, each in a popup from a click, against
// media-bff and the emulator. The page never navigates and keeps what it holds; the popup's
// approve, refuse and close each come back as such; a message from another window or origin, even
// with the popup's nonce, changes nothing; a popup the browser blocks falls back to the sign-in by
// navigation, or only says so. The demo page (media-bff's own origin) asks the same way:
// test/browser/demo-walk.test.ts.
import { readFile } from 'node:fs/promises'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { freePort } from '../helpers/ports.js'
import { startStack } from '../helpers/bff.js'
import { openDemoBrowser } from './demo-run.js'
import { serveExampleSite } from './example-site.js'

async function popupWorld (t: Test) {
  const sitePort = await freePort()
  const siteUrl = `http://127.0.0.1:${sitePort}`
  const stack = await startStack({ env: { ALLOWED_ORIGINS: siteUrl, OAUTH_SCOPES: 'basic user.info' } })
  t.teardown(stack.close)
  const bffUrl = stack.bff.url
  const script = (await readFile(new URL('./examples/popup/site.js', import.meta.url), 'utf8')).replaceAll('MEDIA_BFF_URL', bffUrl)
  const html = await readFile(new URL('./examples/popup/index.html', import.meta.url), 'utf8')
  await serveExampleSite(t, sitePort, { page: html, script })
  const browser = await openDemoBrowser(t, { popupBlocking: true })
  const { page } = browser
  /** Every navigation of the page itself (not its popups'), after the first load. */
  const navigations: string[] = []
  await page.goto(`${siteUrl}/`)
  await page.waitForFunction(() => document.getElementById('who')?.textContent !== '')
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) navigations.push(frame.url()) })
  const loadedAt = await page.evaluate(() => (window as unknown as { loadedAt: number }).loadedAt)
  /** Clicks `selector` and answers in the popup it opens: approve, deny, or close it. */
  const inPopup = async (selector: string, answer: 'approve' | 'deny' | 'close', user = 'alice'): Promise<unknown> => {
    await page.evaluate(() => { document.getElementById('result')!.textContent = '' })
    const [popup] = await Promise.all([page.context().waitForEvent('page'), page.click(selector)])
    await popup.waitForSelector(`#user-${user}`)
    if (answer === 'close') {
      await popup.close()
    } else {
      await popup.check(`#user-${user}`)
      await Promise.all([popup.waitForEvent('close'), popup.click(`#${answer}`)])
    }
    return await resultOf(page)
  }
  const stillThere = async (): Promise<boolean> => await page.evaluate(() => (window as unknown as { loadedAt: number }).loadedAt) === loadedAt
  return { stack, siteUrl, navigations, inPopup, stillThere, ...browser }
}

async function resultOf (page: Page): Promise<unknown> {
  await page.waitForFunction(() => document.getElementById('result')?.textContent !== '')
  return JSON.parse(await page.textContent('#result') ?? 'null')
}

t.test('sign-in, consent and a call that needs a permission, each in a popup: approve, refuse, close; the page stays', async (t) => {
  const { page, navigations, inPopup, stillThere, problems } = await popupWorld(t)
  await page.fill('#draft', 'half a sentence')

  t.same(await inPopup('#sign-in', 'close'), { outcome: 'closed' }, 'a sign-in popup closed: closed')
  t.same(await inPopup('#sign-in', 'deny'), { outcome: 'refused', error: 'access_denied' }, 'refused at the service: refused')
  t.equal(await page.textContent('#who'), 'signed out')
  t.same(await inPopup('#sign-in', 'approve'), { outcome: 'signed_in' }, 'approved: signed in')
  t.equal(await page.textContent('#who'), 'Alice Example (basic user.info)')

  t.same(await inPopup('#allow-upload', 'close'), { outcome: 'closed', missing: ['upload'] }, 'the consent popup closed: closed')
  t.same(await inPopup('#allow-upload', 'deny'), { outcome: 'refused', missing: ['upload'] })
  t.equal(await page.textContent('#who'), 'Alice Example (basic user.info)', 'nothing granted')

  // A call refused for want of upload asks in a popup, and once given, is made again.
  t.same(await inPopup('#register', 'approve'), { registered: true }, 'asked, granted, and the same call again')
  t.equal(await page.textContent('#who'), 'Alice Example (basic user.info upload)')

  t.same(navigations, [], 'the page never navigated')
  t.ok(await stillThere(), 'the very same page load')
  t.equal(await page.inputValue('#draft'), 'half a sentence', 'and what was typed is still there')
  t.same(problems, [], 'no script errors')
})

t.test('a message from any other window or origin, even with the popup\'s nonce, changes nothing', async (t) => {
  const { page, stack } = await popupWorld(t)
  await page.evaluate(() => { document.getElementById('result')!.textContent = '' })
  const [popup] = await Promise.all([page.context().waitForEvent('page'), page.click('#sign-in')])
  await popup.waitForSelector('#user-alice')
  t.ok(popup.url().startsWith(stack.emulator.baseUrl), 'the popup is at the service\'s consent page')
  // The nonce is in the popup's window name: whoever could read it could only post from elsewhere.
  const nonce = (await popup.evaluate(() => window.name)).replace(/^media-bff-/, '')
  t.match(nonce, /^[A-Za-z0-9_-]{22}$/)
  const forged = { type: 'media-bff:popup', nonce, outcome: 'signed_in' }
  // From the popup, but from the service's origin, not media-bff's.
  await popup.evaluate((message) => { window.opener.postMessage(message, '*') }, forged)
  // From the page's own window, not its popup.
  await page.evaluate((message) => { window.postMessage(message, '*') }, forged)
  // From a frame of another origin on the page.
  await page.evaluate(async ([message, src]) => {
    const frame = document.createElement('iframe')
    frame.src = src
    document.body.append(frame)
    await new Promise((resolve) => { frame.onload = resolve })
    frame.contentWindow?.postMessage(message, '*')
    window.postMessage(message, '*')
  }, [forged, `${stack.emulator.baseUrl}/`] as const)
  // Each forged message came before the popup's own: had any counted, the page would say signed_in.
  await popup.check('#user-alice')
  await Promise.all([popup.waitForEvent('close'), popup.click('#deny')])
  t.same(await resultOf(page), { outcome: 'refused', error: 'access_denied' }, 'only what the popup itself said counts')
})

t.test('a popup the browser blocks: the sign-in by navigation instead, or only word of it', async (t) => {
  const { page, siteUrl, stack } = await popupWorld(t)
  // A click the page makes itself as it loads is no person's: chromium's popup blocker stops the window.
  await page.goto(`${siteUrl}/?click=sign-in-quietly`)
  t.same(await resultOf(page), { outcome: 'blocked' }, 'fallback: false: the page is told')
  t.equal(page.url(), `${siteUrl}/`, 'and stays')
  t.equal(page.context().pages().length, 1, 'no popup opened')
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(stack.emulator.baseUrl)),
    page.goto(`${siteUrl}/?click=sign-in`)
  ])
  t.pass('by default the page goes to sign in, as signIn() does')
  await page.check('#user-alice')
  await Promise.all([page.waitForURL((url) => url.href.startsWith(siteUrl)), page.click('#approve')])
  await page.waitForFunction(() => document.getElementById('who')?.textContent?.startsWith('Alice') === true)
  t.equal(page.url(), `${siteUrl}/`, 'and comes back, signed in')
})
