// The demo under BASE_PATH in real Chromium: media-bff answers at /media-bff/ of its origin, and
// the page served there signs in, browses (the relay), uploads and hears its file turn ready over
// the live channel (webhooks to the moved webhook path) without one request outside the path.
import t from 'tap'
import { dropFiles, noticeWithCode, openFolder, signInAs, waitForFolder, waitForSession } from './demo-steps.js'
import { openDemo } from './demo-run.js'

const BASE = '/media-bff'
const WEBHOOK_KEY = 'browser-webhook-key-base-path-0123'

t.test('the demo under /media-bff: sign-in, browsing, upload and live updates, all under the path', async (t) => {
  const { stack, page, problems } = await openDemo(t, { BASE_PATH: BASE, OAUTH_SCOPES: 'basic user.info upload', WEBHOOK_KEYS: WEBHOOK_KEY }, { processingMs: 1500 })
  const { bff, emulator } = stack
  emulator.addWebhook({ user: 'alice', url: `${bff.url}${BASE}/webhooks/media`, key: WEBHOOK_KEY })
  const requested: string[] = []
  page.on('request', (request) => { if (request.url().startsWith(bff.url)) requested.push(new URL(request.url()).pathname) })

  await page.goto(`${bff.url}${BASE}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, `${bff.url}${BASE}`, emulator.baseUrl, 'alice')
  t.equal(await page.textContent('#user-name'), 'Alice Example')
  await waitForFolder(page, 0)
  t.ok(await openFolder(page, 'Archive') > 0, 'the relay answers under the path')
  t.match(page.url(), new RegExp(`^${bff.url}${BASE}/\\?folder=\\d+$`), 'the page keeps its place under the path')

  await dropFiles(page, [{ name: 'under-a-path.txt', text: 'uploaded from a page under /media-bff' }])
  await page.fill('#upload-title', 'Under a path')
  await page.click('#upload-button')
  await noticeWithCode(page, 'upload_done')
  const row = '#file-list [data-testid="folder-file"][data-title="Under a path"]'
  await page.waitForSelector(`${row}[data-status="ready"]`)
  t.pass('the live channel told the page the file is ready')
  t.equal((await (await fetch(`${emulator.baseUrl}/__emulator/files`)).json() as { files: unknown[] }).files.length, 1, 'the file reached the media service')

  t.same(requested.filter((path) => !path.startsWith(`${BASE}/`)), [], 'nothing asked outside the base path')
  t.ok(requested.includes(`${BASE}/events`), 'the live channel too')
  t.same(problems, [], 'no script errors or CSP violations')
})
