// A CMS on another site shows the site's upload page in a frame (FRAME_ANCESTORS), in real
// Chromium with third-party cookies off: the production topology (nginx over TLS on localhost,
// two replicas on Redis, the demo as the site's page) framed by a page of https://127.0.0.1, a
// site of its own. The frame signs in and allows uploads in popups, takes each session into its
// own cookie partition (a Partitioned session cookie, CHIPS), and uploads. A CMS not listed is
// refused the frame by the browser itself.
import { createServer } from 'node:https'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import t, { type Test } from 'tap'
import type { Frame, Page } from 'playwright-core'
import { freePort } from '../helpers/ports.js'
import { makeSelfSignedCert } from '../helpers/tls.js'
import { launchChromium } from '../helpers/chromium.js'
import { startProductionStack } from '../production/stack.js'

/** A CMS's page: the site's page in a frame. */
async function cms (t: Test, publicUrl: string, port: number): Promise<string> {
  const cert = await makeSelfSignedCert('127.0.0.1')
  t.teardown(cert.remove)
  const server = createServer({ cert: cert.cert, key: await readFile(cert.keyFile) }, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>A CMS</title><h1>Editor</h1><iframe id="uploads" src="${publicUrl}/" width="1100" height="900"></iframe>`)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  t.teardown(async () => { await new Promise((resolve) => server.close(resolve)) })
  return `https://127.0.0.1:${port}`
}

async function siteFrame (page: Page): Promise<Frame> {
  const frame = await (await page.waitForSelector('#uploads')).contentFrame()
  if (frame === null) throw new Error('the frame has no content')
  return frame
}

/** Clicks `selector` in the frame, and approves as `user` in the popup it opens. */
async function approveInPopup (page: Page, frame: Frame, selector: string, user: string): Promise<void> {
  const [popup] = await Promise.all([page.context().waitForEvent('page'), frame.click(selector)])
  await popup.waitForSelector(`#user-${user}`)
  await popup.check(`#user-${user}`)
  await Promise.all([popup.waitForEvent('close'), popup.click('#approve')])
}

t.test('a listed CMS frames the upload page: sign-in and consent in popups, the session in the frame\'s partition, an upload', async (t) => {
  const cmsPort = await freePort()
  const listed = `https://127.0.0.1:${cmsPort}`
  const stack = await startProductionStack(t, { env: { DEMO_SITE: 'on', OAUTH_SCOPES: 'basic user.info', FRAME_ANCESTORS: listed } })
  const { publicUrl } = stack
  const cmsUrl = await cms(t, publicUrl, cmsPort)
  t.equal(cmsUrl, listed)
  const chromium = await launchChromium({ args: ['--test-third-party-cookie-phaseout'] })
  t.teardown(chromium.close)
  const context = await chromium.browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1200, height: 1000 } })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  const problems: string[] = []
  page.on('pageerror', (error) => { problems.push(error.message) })

  await page.goto(`${cmsUrl}/`)
  let frame = await siteFrame(page)
  await frame.waitForSelector('body[data-session="signed-out"]')
  const pageNavigations: string[] = []
  page.on('framenavigated', (navigated) => { if (navigated === page.mainFrame()) pageNavigations.push(navigated.url()) })

  await approveInPopup(page, frame, '#sign-in-panel', 'alice')
  frame = await siteFrame(page)
  await frame.waitForSelector('body[data-session="signed-in"]')
  t.equal(await frame.textContent('#user-name'), 'Alice Example', 'signed in, in the frame')
  // The frame's session lives in the CMS's partition only: the popup (a top-level window of the
  // site) set none in the site's own.
  const cookies = (await context.cookies(publicUrl)) as Array<{ name: string, sameSite: string, secure: boolean, httpOnly: boolean, partitionKey?: string }>
  const sessions = cookies.filter((cookie) => cookie.name === '__Host-Http-media-bff')
  t.same(sessions.map((cookie) => cookie.partitionKey), [cmsUrl.replace(/:\d+$/, '')], 'the session cookie in the CMS\'s partition alone')
  t.ok(sessions.every((cookie) => cookie.sameSite === 'None' && cookie.secure && cookie.httpOnly), 'Partitioned, SameSite=None, Secure, HttpOnly')

  await frame.waitForSelector('#upload-panel[data-upload="grantable"]')
  await approveInPopup(page, frame, '#allow-uploads', 'alice')
  await frame.waitForSelector('#upload-panel[data-upload="granted"]')
  t.pass('uploads allowed from the frame, the new session taken into it')

  const dir = await mkdtemp(join(tmpdir(), 'media-bff-framed-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const file = join(dir, 'from-the-cms.txt')
  await writeFile(file, 'Uploaded from a frame.\n')
  await frame.fill('#upload-title', 'From the CMS')
  await frame.setInputFiles('#file-input', [file])
  await frame.click('#upload-button')
  await frame.waitForSelector('#notice[data-code="upload_done"]:not([hidden])')
  const stored = await (await fetch(`${stack.emulator.baseUrl}/__emulator/files`)).json() as { files: Array<{ name: string, user: string }> }
  t.ok(stored.files.some((stored) => stored.name === 'from-the-cms.txt' && stored.user === 'alice'), 'the file reached the media service')
  t.same(pageNavigations, [], 'the CMS page never navigated')
  t.same(problems, [])
})

t.test('a CMS not listed in FRAME_ANCESTORS is refused the frame', async (t) => {
  const stack = await startProductionStack(t, { env: { DEMO_SITE: 'on', FRAME_ANCESTORS: 'https://cms.example.org' } })
  const { publicUrl } = stack
  const cmsUrl = await cms(t, publicUrl, await freePort())
  const chromium = await launchChromium()
  t.teardown(chromium.close)
  const context = await chromium.browser.newContext({ ignoreHTTPSErrors: true })
  const page = await context.newPage()
  const refused = page.waitForEvent('console', (message) => /frame-ancestors/.test(message.text()))
  await page.goto(`${cmsUrl}/`)
  t.match((await refused).text(), /Content Security Policy directive: "frame-ancestors 'self' https:\/\/cms\.example\.org"/, 'the browser refuses it, by the CSP')
  const shown = await Promise.all(page.frames().map(async (candidate) => await candidate.$('body[data-session]').catch(() => null)))
  t.ok(shown.every((element) => element === null), 'nothing of the page is shown in the frame')
})
