// The live channel in the production topology: the browser module's channel (public/client/
// live-events.ts, running here with the test browser's cookie) reaches a replica through nginx,
// events pass through unbuffered, and when that replica is stopped (SIGTERM, as `docker stop`)
// it closes the channel at once, exits 0, and the page reconnects through nginx to the other
// replica, which goes on telling it of its uploads.
import t from 'tap'
import { openLiveChannel, type LiveEvents } from '../../public/client/live-events.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { signIn } from '../helpers/sign-in.js'
import { startProductionStack } from './stack.js'

const WEBHOOK_KEY = 'production-webhook-key-0123456789'
// Files stay processing until a test lets them go (after their finish): a webhook saying a file
// is ready before the finish was remembered would find nobody to tell.
const HELD = 3_600_000
const stack = await startProductionStack(t, { env: { WEBHOOK_KEYS: WEBHOOK_KEY }, emulator: { processingMs: HELD } })
/** Every file processing now becomes ready, and files uploaded later at once too, until held again. */
const letFilesGo = (): void => { stack.emulator.configure({ processingMs: 0 }) }
const holdFiles = (): void => { stack.emulator.configure({ processingMs: HELD }) }

const browser = stack.browser()
await signIn(browser)

// The page's fetch, as a browser's: this browser's cookie on every request to the deployment.
// Which replica answered (nginx's test header) is noted for each channel opened.
const servedChannels: string[] = []
const realFetch = globalThis.fetch
const pageFetch: typeof fetch = async (input, init = {}) => {
  const headers = new Headers(init.headers)
  const cookie = browser.cookieHeader()
  if (cookie !== undefined) headers.set('cookie', cookie)
  const response = await realFetch(input, { ...init, headers })
  if (String(input).endsWith('/events')) servedChannels.push(response.headers.get('x-test-upstream') ?? '')
  return response
}
globalThis.fetch = pageFetch
t.teardown(() => { globalThis.fetch = realFetch })

const channel = openLiveChannel({ root: stack.publicUrl, timeoutMs: 10_000 })
t.teardown(channel.close)
const seen: { [K in keyof LiveEvents]: Array<LiveEvents[K]> } = { open: [], file: [], ended: [], resync: [], paused: [], error: [] }
for (const type of Object.keys(seen) as Array<keyof LiveEvents>) channel.on(type, (event) => { (seen[type] as unknown[]).push(event) })
const until = async (what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

t.test('an upload is announced through nginx as it happens', async (t) => {
  await until('the channel opening', () => seen.open.length === 1)
  t.equal(channel.state, 'open')
  const first = stack.replicas.find((replica) => servedChannels[0]?.endsWith(`:${replica.port}`))
  const other = stack.replicas.find((replica) => replica !== first)
  if (first === undefined || other === undefined) throw new Error(`no replica served the channel (${servedChannels.join()})`)
  // The service's webhooks reach the replicas over the internal network.
  stack.emulator.addWebhook({ user: 'alice', url: `${other.url}/webhooks/media`, key: WEBHOOK_KEY })

  const record = (await browser.post('/uploads/register', { folder_id: 0, title: 'Through nginx' })).json()
  t.equal((await uploadDirect(record.url_upload_direct, 'a.mp4', 'video')).status, 200)
  t.equal((await browser.post(record.finish_url)).status, 200)
  await until('the finish told', () => seen.file.length > 0)
  letFilesGo()
  await until('ready', () => seen.file.some(({ file }) => file.status === 'ready'))
  const told = seen.file.map(({ file, event }) => ({ title: file.title, status: file.status, event }))
  t.match(told[0], { title: 'Through nginx', event: 'finished' }, 'the finish told first')
  t.match(told.at(-1), { title: 'Through nginx', status: 'ready' }, 'then ready, as the service processed it')
  // The file became ready after its finish: the transcode's webhook tells the page.
  t.equal(told.at(-1)?.event, 'file_transcode')
  t.equal(told.filter(({ status }) => status === 'ready').length, 1, 'ready, once')

  t.test('the replica holding the channel stops: the page carries on with the other', async (t) => {
    const stopping = first.stop('SIGTERM', 10_000)
    t.equal(await stopping, 0, 'it exits 0, its channel closed rather than waited for')
    await until('the page reconnecting', () => seen.open.length === 2)
    t.same(seen.open, [{ reconnected: false }, { reconnected: true }])
    t.ok(servedChannels.at(-1)?.endsWith(`:${other.port}`), `the other replica holds it now (${servedChannels.join(' then ')})`)
    t.same(seen.ended, [], 'the session did not end')

    holdFiles()
    const again = (await browser.post('/uploads/register', { folder_id: 0, title: 'After the restart' })).json()
    t.equal((await uploadDirect(again.url_upload_direct, 'b.mp4', 'video')).status, 200)
    t.equal((await browser.post(again.finish_url)).status, 200)
    const second = (): Array<{ status: string | undefined }> => seen.file.filter(({ file }) => file.title === 'After the restart').map(({ file }) => ({ status: file.status }))
    await until('the second finish told', () => second().length > 0)
    letFilesGo()
    await until('the second upload ready', () => second().some(({ status }) => status === 'ready'))
    t.match(second().at(-1), { status: 'ready' }, 'the other replica told the page of it, up to ready')
    const access = await stack.nginx.accessLog()
    t.notMatch(access, /last-event-id|__Host-/i, 'nginx logs neither the cookie nor the page\'s place in the stream')
  })
})
