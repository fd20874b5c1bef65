// Webhook follow-ups in one instance (no Redis), over HTTP against the emulator: a webhook is
// answered 2xx only once its follow-up is queued, so a full queue answers 503 with Retry-After and
// the service's retry of it is taken, not dropped as a duplicate; a follow-up calls the service
// as requests do (refresh and retry on invalid_token); a finish sent twice tells the pages once.
// (That a finish tells its pages in one message and does not wait for the bus:
// test/events/finish-announcement.unit.test.ts.)
import t, { type Test } from 'tap'
import { request } from 'undici'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { openChannel } from '../helpers/event-stream.js'
import { signedWebhook } from '../helpers/webhooks.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'

const webhookAbout = (fileId: number): string => signedWebhook(WEBHOOK_KEY, { fileId })

async function stackWithUpload (t: Test, env: Record<string, string> = {}) {
  const stack = await startStack({
    emulator: { processingMs: 600_000 },
    env: { ...UNLIMITED_RATES, OAUTH_SCOPES: 'basic user.info upload manage', WEBHOOK_KEYS: WEBHOOK_KEY, RATE_LIMIT_WEBHOOKS_PER_MINUTE: '100000', ...env }
  })
  t.teardown(stack.close)
  const alice = stack.bff.browser()
  t.equal((await signIn(alice)).callback.status, 302)
  const upload = async (count = 1): Promise<number[]> => {
    const record = (await alice.post('/uploads/register', { folder_id: 0, options: { autofinish: false } })).json()
    for (let i = 0; i < count; i++) t.equal((await uploadDirect(record.url_upload_direct, `clip-${i}.mp4`, 'not really a video')).status, 200)
    return (await alice.post(record.finish_url)).json().files.map((file: { file_id: number }) => file.file_id)
  }
  const post = async (body: string): Promise<{ status: number, retryAfter: unknown, body: any }> => {
    const answer = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    return { status: answer.statusCode, retryAfter: answer.headers['retry-after'], body: await answer.body.json() }
  }
  const counter = async (name: string, labels: string): Promise<number> => {
    const text = await (await request(`${stack.bff.url}/metrics`)).body.text()
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `))
    return line === undefined ? 0 : Number(line.split(' ').pop())
  }
  return { stack, alice, upload, post, counter }
}

t.test('a full queue answers 503 with Retry-After; the service\'s retry is then taken, not a duplicate', async (t) => {
  // MEMORY_MAX_SESSIONS=10: the in-memory queue holds 10 follow-ups.
  const { stack, upload, post } = await stackWithUpload(t, { MEMORY_MAX_SESSIONS: '10' })
  const [fileId = 0] = await upload()
  // The service answers slowly: follow-ups (8 at a time) hold the queue.
  stack.emulator.injectFault({ endpoint: 'library', delayMs: 2_000 })
  const bodies = Array.from({ length: 30 }, () => webhookAbout(fileId))
  const first: Array<Awaited<ReturnType<typeof post>>> = []
  for (const body of bodies) first.push(await post(body))
  const refused = bodies.filter((_body, i) => first[i]?.status === 503)
  t.ok(first.every((answer) => answer.status === 202 || answer.status === 503), 'each one taken or refused')
  t.ok(refused.length >= 10, `${refused.length} refused once the queue was full`)
  t.match(first.find((answer) => answer.status === 503), { body: { error: 'unavailable' }, retryAfter: /^\d+$/ }, 'with Retry-After, for the service to retry')
  stack.emulator.clearFaults()
  await stack.bff.app.live.webhooks.idle()
  for (const body of refused) t.equal((await post(body)).status, 202, 'the retry is taken as a first delivery')
  // (The latest: with MEMORY_MAX_SESSIONS=10 the store of webhook ids holds only the last few.)
  t.equal((await post(refused.at(-1) ?? '')).status, 200, 'and only now is the same id a duplicate')
})

t.test('a follow-up refused as invalid_token refreshes and tries again, as a request does', async (t) => {
  const { stack, alice, upload, post, counter } = await stackWithUpload(t)
  const [fileId = 0] = await upload()
  const page = await openChannel(alice)
  t.teardown(page.close)
  // The file changes at the service, so the follow-up has something new to tell.
  t.equal((await alice.fetch('PUT', `/api/files/${fileId}`, { headers: { 'x-csrf': '1', 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Renamed' }) })).status, 200)
  const refreshes = stack.emulator.counters().tokenGrants.refresh_token
  // The next library call answers 401 invalid_token: the service has let the access token go.
  stack.emulator.injectFault({ endpoint: 'library', failStatus: 401, failCount: 1 })
  t.equal((await post(webhookAbout(fileId))).status, 202)
  t.match((await page.waitFor('file', 1)).at(-1), { file_id: fileId, title: 'Renamed' }, 'the page hears of it')
  t.equal(stack.emulator.counters().tokenGrants.refresh_token, refreshes + 1, 'after one refresh')
  t.equal(await counter('media_bff_webhook_follow_ups_total', 'outcome="announced"'), 1)
})

t.test('a finish sent twice tells the pages once', async (t) => {
  const { alice } = await stackWithUpload(t)
  const page = await openChannel(alice)
  t.teardown(page.close)
  const record = (await alice.post('/uploads/register', { folder_id: 0 })).json()
  t.equal(record.autofinish, true, 'the service finishes it by itself: the module still finishes it through media-bff')
  t.equal((await uploadDirect(record.url_upload_direct, 'clip.mp4', 'not really a video')).status, 200)
  t.equal((await alice.post(record.finish_url)).status, 200)
  t.equal((await alice.post(record.finish_url)).status, 200, 'a second finish is answered as the first')
  await page.waitFor('file', 1)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(page.data('file').length, 1, 'and told once')
})
