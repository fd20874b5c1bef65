// The recommended deployment (docs/guide/integrate.md, "Which origins can work"): the site and
// media-bff on one origin, behind real nginx running docker/nginx-same-origin.conf over TLS, two
// production replicas on Redis with BASE_PATH=/media-bff. The site's own page
// (examples/same-origin/) signs in, asks for the upload scope before a file is picked (the module's
// access) and comes back to the same page, browses through the relay, uploads and hears its file
// turn ready over the live channel, in real Chromium, and not one request leaves the origin for
// media-bff: no CORS at all. Its upload reports no progress, so the browser posts it to the upload
// host without a preflight.
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { launchChromium } from '../helpers/chromium.js'
import { sameOriginNginxConf } from '../helpers/nginx.js'
import { startProductionStack } from '../production/stack.js'
import { consentAs } from './demo-steps.js'

const BASE = '/media-bff'
const WEBHOOK_KEY = 'same-origin-webhook-key-0123456789'
const siteRoot = fileURLToPath(new URL('./examples/same-origin/', import.meta.url))

t.test('the site\'s own page with media-bff under /media-bff of its origin: sign-in, consent before the file, relay, upload, live update, no CORS', async (t) => {
  const stack = await startProductionStack(t, {
    env: { BASE_PATH: BASE, OAUTH_SCOPES: 'basic user.info', WEBHOOK_KEYS: WEBHOOK_KEY },
    emulator: { processingMs: 1500 },
    nginx: { confFile: sameOriginNginxConf, siteRoot }
  })
  const { emulator, publicUrl } = stack
  // Server to server, as the service posts them: to a replica, under the base path.
  const [replica] = stack.replicas
  emulator.addWebhook({ user: 'alice', url: `${replica?.url ?? ''}${BASE}/webhooks/media`, key: WEBHOOK_KEY })

  const chromium = await launchChromium()
  t.teardown(chromium.close)
  const context = await chromium.browser.newContext({ ignoreHTTPSErrors: true })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  const problems: string[] = []
  page.on('pageerror', (error) => { problems.push(error.message) })
  const toOrigin: string[] = []
  const elsewhere = new Set<string>()
  page.on('request', (request) => { if (request.url().startsWith(publicUrl)) toOrigin.push(`${request.method()} ${new URL(request.url()).pathname}`) })
  page.on('request', (request) => { if (!request.url().startsWith(publicUrl)) elsewhere.add(new URL(request.url()).origin) })

  await page.goto(`${publicUrl}/`)
  await page.waitForSelector('#sign-in:not([hidden])')
  await Promise.all([page.waitForURL((url) => url.href.startsWith(emulator.baseUrl)), page.click('#sign-in')])
  await consentAs(page, publicUrl, 'alice')
  t.equal(page.url(), `${publicUrl}/`, 'back on the site\'s own page')
  await page.waitForSelector('#who:not(:empty)')
  t.equal(await page.textContent('#who'), 'Alice Example')
  await page.waitForSelector('#folders li')
  t.ok((await page.locator('#folders li').allTextContents()).includes('Archive'), 'the relay answers under /media-bff')
  await page.waitForSelector('body[data-live="open"]')

  await page.waitForSelector('body[data-upload="grantable"]')
  t.ok(await page.isDisabled('#file'), 'no file can be picked before uploads are allowed')
  await Promise.all([page.waitForURL((url) => url.href.startsWith(emulator.baseUrl)), page.click('#allow-upload')])
  t.match(new URL(page.url()).searchParams.get('scope'), /\bupload\b/, 'the consent page asks for upload')
  await consentAs(page, publicUrl, 'alice')
  t.equal(page.url(), `${publicUrl}/`, 'back on the same page')
  await page.waitForSelector('body[data-upload="granted"]')
  t.equal(await page.textContent('#status'), 'Uploads allowed (asked before a file was picked)', 'returned() says it was given, with the page\'s state')
  await page.waitForSelector('body[data-live="open"]')

  emulator.resetCounters()
  await page.setInputFiles('#file', { name: 'same-origin.txt', mimeType: 'text/plain', buffer: Buffer.from('one origin\n') })
  await page.click('#upload')
  await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('Uploaded') === true)
  await page.waitForSelector('#files li[data-status="ready"]')
  t.pass('the live channel told the page the file is ready')
  t.equal(emulator.counters().uploadPreflights, 0, 'an upload without onProgress goes without a preflight')

  const mediaBff = toOrigin.filter((line) => line.split(' ')[1]?.startsWith(`${BASE}/`) === true)
  t.ok(mediaBff.some((line) => line === `GET ${BASE}/events`), 'the live channel')
  t.ok(mediaBff.some((line) => line === `POST ${BASE}/uploads/register`), 'the registration')
  t.ok(mediaBff.some((line) => line.startsWith(`GET ${BASE}/api/folders/0/contents`)), 'the relay')
  t.same(toOrigin.filter((line) => !line.split(' ')[1]?.startsWith(`${BASE}/`) && !['GET /', 'GET /site.js'].includes(line)), [], 'nothing else on the origin but the site\'s own page')
  t.same(toOrigin.filter((line) => line.startsWith('OPTIONS')), [], 'no preflight')
  t.same([...elsewhere].sort(), [emulator.apiOrigin, emulator.uploadOrigin].sort(), 'other origins: only the media service\'s consent page and its upload host, never media-bff')
  t.same(problems, [])
})
