// An instance killed (SIGKILL) after it accepted webhooks: their follow-ups wait in Redis, and the
// other instance takes them over and tells the person's pages, as if nothing had happened. Two
// media-bff processes (src/server.ts) on one Redis deployment (webhook-takeover-*.test.ts: single,
// Sentinel, Cluster), the emulator's real webhooks, and the page's channel on both instances.
import type { Test } from 'tap'
import { startEmulator } from '../../emulator/index.js'
import { startBffProcess, type BffProcess } from '../helpers/processes.js'
import { freePort } from '../helpers/ports.js'
import { Browser } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { openChannel, type OpenChannel } from '../helpers/event-stream.js'
import { TEST_SESSION_SECRET, testTokenKey } from '../helpers/bff.js'
import { pollUntil } from '../emulator/poll.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'
const FILES = 3

export function takeoverSuite (t: Test, redisUrl: () => string): void {
  t.test('an instance killed after accepting webhooks: another finishes their follow-ups', async (t) => {
    const port = await freePort()
    const publicUrl = `http://127.0.0.1:${port}`
    const emulator = await startEmulator({ apiPort: 0, uploadPort: 0, redirectUri: `${publicUrl}/auth/callback`, processingMs: 500 })
    t.teardown(emulator.stop)
    const env = {
      PUBLIC_URL: publicUrl,
      MEDIA_BASE_URL: emulator.baseUrl,
      OAUTH_CLIENT_ID: emulator.clientId,
      OAUTH_CLIENT_SECRET: emulator.clientSecret,
      OAUTH_SCOPES: 'basic user.info upload',
      SESSION_SECRETS: TEST_SESSION_SECRET,
      TOKEN_KEYS: testTokenKey(),
      REDIS_URL: redisUrl(),
      REDIS_KEY_PREFIX: `takeover-${port}:`,
      WEBHOOK_KEYS: WEBHOOK_KEY,
      WEBHOOK_TAKEOVER_AFTER: '2s',
      LOG_LEVEL: 'debug'
    }
    const instances = [await startBffProcess({ name: 'A', env, port }), await startBffProcess({ name: 'B', env })]
    t.teardown(async () => { await Promise.all(instances.map(async (instance) => await instance.stop('SIGKILL'))) })
    const [a] = instances as [BffProcess, BffProcess]
    // The service posts its webhooks to A.
    emulator.addWebhook({ user: 'alice', url: `${a.url}/webhooks/media`, key: WEBHOOK_KEY })

    const alice = new Browser(a.url)
    t.equal((await signIn(alice)).callback.status, 302)
    const pages = new Map<BffProcess, OpenChannel>()
    for (const instance of instances) {
      const there = new Browser(instance.url)
      for (const [name, value] of alice.cookies) there.cookies.set(name, value)
      const page = await openChannel(there)
      t.teardown(page.close)
      pages.set(instance, page)
    }

    // The service is slow to answer about files: the follow-ups are under way when one dies.
    emulator.injectFault({ endpoint: 'library', delayMs: 60_000 })
    const record = (await alice.post('/uploads/register', { folder_id: 0, options: { autofinish: false } })).json()
    for (let i = 0; i < FILES; i++) t.equal((await uploadDirect(record.url_upload_direct, `clip-${i}.mp4`, 'not really a video')).status, 200)
    const finished = await alice.post(record.finish_url)
    t.equal(finished.status, 200)
    const fileIds = finished.json().files.map((file: { file_id: number }) => file.file_id)

    const accepted = await pollUntil('the service\'s webhooks about the processed files taken', () => emulator.webhooksSent().filter((sent) => sent.event === 'file_transcode' && sent.status === 202), (sent) => sent.length === FILES)
    const first = accepted[0]?.id ?? ''
    const taker = await Promise.race(instances.map(async (instance) => {
      await instance.waitForLog((line) => line.msg === 'following a webhook up' && line.webhookId === first, 15_000)
      return instance
    }))
    t.equal(await taker.stop('SIGKILL'), null, `${taker.name}, which took it, killed`)
    emulator.clearFaults()
    const survivor = instances.find((instance) => instance !== taker) as BffProcess
    const page = pages.get(survivor) as OpenChannel
    const started = Date.now()
    const ready = await pollUntil('every file ready on the survivor\'s page', () => page.data('file').filter((file) => file.status === 'ready').map((file) => file.file_id), (ids) => fileIds.every((id: number) => ids.includes(id)), 30_000)
    t.comment(`ready on ${survivor.name}'s page ${Date.now() - started} ms after ${taker.name} was killed`)
    t.same([...new Set(ready)].sort(), [...fileIds].sort(), 'each file heard ready')
    t.equal(ready.length, FILES, 'and each once')
    const metrics = await (await fetch(`${survivor.url}/metrics`)).text()
    t.match(metrics, /^media_bff_webhook_follow_up_takeovers_total [1-9]/m, `${survivor.name} took over what ${taker.name} had taken`)
    await pollUntil('nothing left waiting', async () => /^media_bff_webhook_follow_ups_waiting 0$/m.test(await (await fetch(`${survivor.url}/metrics`)).text()), (done) => done)
  })
}
