// Live updates in real Chromium on the demo page: alice uploads in one tab; the file shows as
// processing and then ready, with its share action, in that tab and in her other one, without a
// reload, as the emulator processes it and sends its signed webhook. Bob, signed in at the same
// time on the same page, is told nothing.
import t from 'tap'
import type { Page } from 'playwright-core'
import { request } from 'undici'
import { dropFiles, noticeWithCode, signInAs, waitForFolder, waitForSession } from './demo-steps.js'
import { openDemo } from './demo-run.js'

const WEBHOOK_KEY = 'browser-webhook-key-0123456789'

async function markUnreloaded (page: Page): Promise<void> {
  await page.evaluate(() => { (window as unknown as { unreloaded: boolean }).unreloaded = true })
}
async function wasReloaded (page: Page): Promise<boolean> {
  return !(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded === true))
}
const row = (title: string): string => `#file-list [data-testid="folder-file"][data-title="${title}"]`
async function statusOf (page: Page, title: string): Promise<string | null> {
  return await page.locator(row(title)).getAttribute('data-status')
}

t.test('alice\'s upload turns ready in both her tabs; bob\'s page hears nothing', async (t) => {
  const { stack, page: first, problems, newPage, newContext } = await openDemo(t, { OAUTH_SCOPES: 'basic user.info upload share', WEBHOOK_KEYS: WEBHOOK_KEY }, { processingMs: 4000 })
  const { bff, emulator } = stack
  for (const user of ['alice', 'bob']) emulator.addWebhook({ user, url: `${bff.url}/webhooks/media`, key: WEBHOOK_KEY })

  await first.goto(`${bff.url}/`)
  await signInAs(first, bff.url, emulator.baseUrl, 'alice')
  await waitForFolder(first, 0)
  const second = await newPage()
  await second.goto(`${bff.url}/`)
  await waitForSession(second, 'signed-in')
  await waitForFolder(second, 0)
  const bob = await newPage(await newContext())
  await bob.goto(`${bff.url}/`)
  await signInAs(bob, bff.url, emulator.baseUrl, 'bob')
  await waitForFolder(bob, 0)
  for (const page of [second, bob]) await markUnreloaded(page)
  const bobsFiles = await bob.locator('#file-list [data-testid="folder-file"]').count()

  await dropFiles(first, [{ name: 'launch.mp4', text: 'not really a video' }])
  await first.fill('#upload-title', 'Launch video')
  await first.click('#upload-button')
  await noticeWithCode(first, 'upload_done')

  for (const [name, page] of [['the uploading tab', first], ['her other tab', second]] as const) {
    await page.locator(row('Launch video')).waitFor()
    const shownFirst = await statusOf(page, 'Launch video')
    t.ok(shownFirst === 'processing' || shownFirst === 'ready', `${name} shows the file at once (${String(shownFirst)})`)
  }
  t.equal(await statusOf(second, 'Launch video'), 'processing', 'processing while the service transcodes it')
  t.match(await second.locator(`${row('Launch video')} [data-testid="file-status"]`).textContent(), /Processing/)
  for (const page of [first, second]) {
    await page.waitForSelector(`${row('Launch video')}[data-status="ready"]`)
    t.match(await page.locator(`${row('Launch video')} [data-testid="file-status"]`).textContent(), /Ready/)
    t.equal(await page.locator(`${row('Launch video')} [data-testid="share-file"]`).count(), 1, 'with its share action')
  }
  t.equal(await wasReloaded(second), false, 'the other tab was not reloaded')

  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal(await bob.locator('#file-list [data-testid="folder-file"]').count(), bobsFiles, 'bob\'s list is as it was')
  t.equal(await bob.locator(row('Launch video')).count(), 0)
  t.equal(await wasReloaded(bob), false)
  const metrics = await (await request(`${bff.url}/metrics`)).body.text()
  t.match(metrics, /^media_bff_event_streams 3$/m, 'three pages hold a channel: alice\'s two and bob\'s')
  t.match(metrics, /^media_bff_events_delivered_total 4$/m, 'two events to each of alice\'s tabs, none to bob\'s')
  t.same(problems, [], 'no script errors or CSP violations')
})

t.test('an upload with the browser module\'s defaults (the service finishes it by itself) reaches the page as processing, then ready', async (t) => {
  const { stack, page, problems } = await openDemo(t, { OAUTH_SCOPES: 'basic user.info upload', WEBHOOK_KEYS: WEBHOOK_KEY }, { processingMs: 4000 })
  const { bff, emulator } = stack
  emulator.addWebhook({ user: 'alice', url: `${bff.url}/webhooks/media`, key: WEBHOOK_KEY })
  await page.goto(`${bff.url}/`)
  await signInAs(page, bff.url, emulator.baseUrl, 'alice')
  await waitForFolder(page, 0)
  // As a website's own page would: the module from media-bff, its defaults, no finishUpload.
  const heard = await page.evaluate(async () => {
    const { createMediaBffClient } = await import('/client/media-bff-client.js' as string) as typeof import('../../public/client/media-bff-client.js')
    const bff = createMediaBffClient()
    const channel = bff.liveEvents()
    const statuses: string[] = []
    const ready = new Promise<void>((resolve) => {
      channel.on('file', ({ file }) => {
        if (file.title !== 'Defaults') return
        statuses.push(String(file.status))
        if (file.status === 'ready') resolve()
      })
    })
    await new Promise<void>((resolve) => { channel.on('open', () => { resolve() }) })
    const registration = await bff.registerUpload({ folderId: 0, title: 'Defaults' })
    const uploaded = await bff.uploadFile(registration, new Blob(['not really a video']), { filename: 'defaults.mp4' })
    await ready
    channel.close()
    return { autofinish: registration.autofinish, files: uploaded.files?.length, statuses }
  })
  t.same(heard, { autofinish: true, files: 1, statuses: ['processing', 'ready'] }, 'finished through media-bff by the module, heard processing and then ready')
  t.same(problems, [], 'no script errors or CSP violations')
})
