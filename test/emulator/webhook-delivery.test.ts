// Outbound webhooks as the service documents them: an account's events reach that account's
// endpoints only, in the documented body, signed with the endpoint's key; a failed delivery is
// retried up to three times with the same id and a new signature; stop() ends all of it.
import t from 'tap'
import type { RunningEmulator } from '../../emulator/index.js'
import { apiCall, postFile, registerUpload, startTestEmulator, user } from '../helpers/emulator.js'
import { freePort } from '../helpers/ports.js'
import { call, libraryTokens } from './library-client.js'
import { pollUntil } from './poll.js'
import { expectedSignature, signedWith, startReceiver, uuidPattern, type Delivery } from './webhook-receiver.js'

const tenMinutes = 600_000
const everyScope = ['basic', 'user.info', 'manage', 'upload', 'share']
const quickRetries = [20, 20, 20]

async function upload (emulator: RunningEmulator, userName = 'alice', folderId = '0'): Promise<number> {
  const record = await registerUpload(emulator, { folder_id: folderId }, { privateToken: user(emulator, userName).privateToken })
  const answer = await postFile(record.url_upload_direct, { content: 'a clip', filename: 'clip.mp4', fields: { title: `${userName}'s clip` } })
  if (answer.status !== 200) throw new Error(`upload failed: ${answer.status}`)
  return answer.body.file_id as number
}

const event = (name: string) => (delivery: Delivery): boolean => delivery.body.event === name

t.test('upload, transcode and trash events reach the account\'s endpoint in the documented, signed body', async (t) => {
  const receiver = await startReceiver(t)
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes, webhooks: [{ user: 'alice', url: receiver.url, key: 'alice-webhook-key' }] })
  const { alice } = await libraryTokens(emulator)
  const startedAt = Math.floor(Date.now() / 1000)

  const fileId = await upload(emulator, 'alice', '2')
  const [uploaded] = await receiver.waitFor(1, event('file_upload')) as [Delivery]
  t.equal(uploaded.headers['content-type'], 'application/json')
  t.equal(uploaded.path, '/hooks/media', 'posted to the endpoint\'s own URL')
  t.same(Object.keys(uploaded.body), ['signature', 'id', 'event', 'api_version', 'data'])
  t.match(uploaded.body.id, uuidPattern)
  t.equal(uploaded.body.api_version, '2024-06-01')
  t.same(uploaded.body.data, { file_id: fileId, folder_id: 2, title: 'alice\'s clip', status: 'processing' })
  const { timestamp, token, signature } = uploaded.body.signature
  t.match(timestamp, /^\d{10}$/, 'Unix seconds, as a string')
  t.ok(Number(timestamp) >= startedAt && Number(timestamp) <= Math.floor(Date.now() / 1000), 'the time it was sent')
  t.match(token, /^[0-9a-f]{50}$/)
  t.equal(signature, expectedSignature('alice-webhook-key', timestamp, token), 'HMAC-SHA256 of timestamp + token with the endpoint key, lowercase hex')

  emulator.configure({ processingMs: 0 })
  const [transcoded] = await receiver.waitFor(1, event('file_transcode')) as [Delivery]
  t.same(transcoded.body.data, { file_id: fileId, folder_id: 2, title: 'alice\'s clip', status: 'ready' })
  t.ok(signedWith('alice-webhook-key', transcoded.body))
  t.not(transcoded.body.id, uploaded.body.id, 'every event has an id of its own')

  const single = await postFile(`${emulator.baseUrl}/api/upload/file`, { filename: 'one.txt', fields: { folder_id: '3' }, headers: { authorization: `Private-Token ${user(emulator, 'alice').privateToken}` } })
  const ofSingle = (delivery: Delivery): boolean => delivery.body.data.file_id === single.body.file_id
  t.same((await receiver.waitFor(2, ofSingle)).map((delivery) => delivery.body.event).sort(), ['file_transcode', 'file_upload'], 'the single-call upload sends both too')

  t.equal((await call(emulator, `files/${fileId}`, { method: 'DELETE', token: alice })).status, 200)
  const [trashed] = await receiver.waitFor(1, event('file_trash')) as [Delivery]
  t.same(trashed.body.data, { file_id: fileId, folder_id: 2, title: 'alice\'s clip', status: 'ready' })

  const folder = await call(emulator, 'folders/0', { method: 'POST', token: alice, json: { name: 'Short-lived' } })
  t.equal((await call(emulator, `folders/${folder.body.folder_id as number}`, { method: 'DELETE', token: alice })).status, 200)
  const [folderTrashed] = await receiver.waitFor(1, event('folder_trash')) as [Delivery]
  t.same(folderTrashed.body.data, { folder_id: folder.body.folder_id, name: 'Short-lived' })
  t.ok(signedWith('alice-webhook-key', folderTrashed.body))

  // An attempt is logged once its answer is in, a moment after the receiver has the delivery.
  await pollUntil('every delivery logged', () => emulator.webhooksSent(), (logged) => logged.length === receiver.deliveries.length)
  const sent = (await apiCall(`${emulator.baseUrl}/__emulator/webhooks/sent`)).body.attempts
  t.same(sent, emulator.webhooksSent(), 'the hook and webhooksSent() agree')
  t.same(sent.map((attempt: { event: string }) => attempt.event).sort(), ['file_transcode', 'file_transcode', 'file_trash', 'file_upload', 'file_upload', 'folder_trash'])
  t.match(sent.find((attempt: { event: string }) => attempt.event === 'folder_trash'), { id: folderTrashed.body.id, user: 'alice', url: receiver.url, attempt: 1, status: 200, body: folderTrashed.body })
})

t.test('an account\'s events reach only its own endpoints, and only the events they take', async (t) => {
  const [aliceReceiver, bobReceiver, aliceTrashOnly] = await Promise.all([startReceiver(t), startReceiver(t), startReceiver(t)])
  const emulator = await startTestEmulator(t, {
    processingMs: tenMinutes,
    users: [{ name: 'alice', scopes: everyScope }, { name: 'bob', scopes: everyScope }],
    webhooks: [{ user: 'alice', url: aliceReceiver.url, key: 'alice-key' }, { user: 'alice', url: aliceTrashOnly.url, key: 'trash-key', events: ['file_trash'] }]
  })
  emulator.addWebhook({ user: 'bob', url: bobReceiver.url, key: 'bob-key' })
  const { alice } = await libraryTokens(emulator)

  const aliceFile = await upload(emulator, 'alice')
  await aliceReceiver.waitFor(1, event('file_upload'))
  const bobFile = await upload(emulator, 'bob')
  await bobReceiver.waitFor(1, event('file_upload'))
  t.equal((await call(emulator, `files/${aliceFile}`, { method: 'DELETE', token: alice })).status, 200)
  const [trashed] = await aliceTrashOnly.waitFor(1) as [Delivery]
  await aliceReceiver.waitFor(1, event('file_trash'))
  // Bob's upload came after alice's: any delivery of alice's misrouted to bob would be in by now.
  t.same(bobReceiver.deliveries.map((delivery) => [delivery.body.event, delivery.body.data.file_id]), [['file_upload', bobFile]], 'bob\'s endpoint gets bob\'s upload only')
  t.ok(signedWith('bob-key', bobReceiver.deliveries[0]?.body))
  t.same(aliceReceiver.deliveries.map((delivery) => delivery.body.data.file_id), [aliceFile, aliceFile], 'alice\'s endpoint never sees bob\'s files')
  t.same(aliceTrashOnly.deliveries.map((delivery) => delivery.body.event), ['file_trash'], 'an endpoint for file_trash only gets file_trash only')
  t.ok(signedWith('trash-key', trashed.body), 'each endpoint\'s deliveries are signed with its own key')
  t.notOk(signedWith('alice-key', trashed.body))
})

t.test('500 twice then 200: the same id three times, each with a new token and signature', async (t) => {
  const receiver = await startReceiver(t, [500, 500, 200])
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes, webhookRetryDelaysMs: quickRetries, webhooks: [{ user: 'alice', url: receiver.url, key: 'retry-key' }] })
  await upload(emulator)
  const attempts = await receiver.waitFor(3)
  t.equal(new Set(attempts.map((delivery) => delivery.body.id)).size, 1, 'one id')
  t.equal(new Set(attempts.map((delivery) => delivery.body.signature.token)).size, 3, 'three tokens')
  t.equal(new Set(attempts.map((delivery) => delivery.body.signature.signature)).size, 3, 'three signatures')
  t.ok(attempts.every((delivery) => signedWith('retry-key', delivery.body)), 'each valid')
  const logged = await pollUntil('three attempts logged', () => emulator.webhooksSent(), (sent) => sent.length >= 3)
  t.same(logged.map((attempt) => [attempt.attempt, attempt.status]), [[1, 500], [2, 500], [3, 200]])
  t.same(logged.map((attempt) => attempt.body), attempts.map((delivery) => delivery.body), 'the log holds what was sent')
})

t.test('500 forever: exactly four attempts, after the configured delays', async (t) => {
  const failing = await startReceiver(t, [500])
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes, webhookRetryDelaysMs: [30, 60, 90], webhooks: [{ user: 'alice', url: failing.url, key: 'k' }] })
  const startedAt = Date.now()
  await upload(emulator)
  const logged = await pollUntil('four attempts logged', () => emulator.webhooksSent(), (sent) => sent.length >= 4)
  t.ok(Date.now() - startedAt >= 180, 'not before the three delays have passed')
  t.same(logged.map((attempt) => [attempt.attempt, attempt.status]), [[1, 500], [2, 500], [3, 500], [4, 500]])
  // A fifth attempt would have been due 90 ms after the fourth; a later delivery's arrival shows
  // that time has passed.
  emulator.clearWebhooks()
  const later = await startReceiver(t)
  emulator.addWebhook({ user: 'alice', url: later.url, key: 'k' })
  await upload(emulator)
  await later.waitFor(1)
  await pollUntil('the later delivery is logged', () => emulator.webhooksSent(), (sent) => sent.length >= 5)
  t.equal(failing.deliveries.length, 4, 'no fifth attempt')
  t.equal(new Set(failing.deliveries.map((delivery) => delivery.body.id)).size, 1)
})

t.test('an endpoint that cannot be reached is tried four times too, with status 0', async (t) => {
  // A free port below the ephemeral range: nothing listens there, so the connection is refused.
  const url = `http://127.0.0.1:${await freePort()}/hooks`
  const emulator = await startTestEmulator(t, { processingMs: tenMinutes, webhookRetryDelaysMs: quickRetries, webhooks: [{ user: 'alice', url, key: 'k' }] })
  await upload(emulator)
  const logged = await pollUntil('four attempts logged', () => emulator.webhooksSent(), (sent) => sent.length >= 4)
  t.same(logged.map((attempt) => [attempt.attempt, attempt.status, attempt.url]), [[1, 0, url], [2, 0, url], [3, 0, url], [4, 0, url]])
})

t.test('sending never holds up the API call, and stop() ends deliveries in flight and retries waiting', async (t) => {
  const silent = await startReceiver(t, 'silent')
  const failing = await startReceiver(t, [503])
  const emulator = await startTestEmulator(t, {
    processingMs: tenMinutes,
    webhookRetryDelaysMs: [tenMinutes, tenMinutes, tenMinutes],
    webhooks: [{ user: 'alice', url: silent.url, key: 'k' }, { user: 'alice', url: failing.url, key: 'k' }]
  })
  const startedAt = Date.now()
  await upload(emulator)
  t.ok(Date.now() - startedAt < 4000, 'the upload did not wait for a receiver that never answers')
  await silent.waitFor(1)
  await pollUntil('the failed attempt is logged', () => emulator.webhooksSent(), (sent) => sent.some((attempt) => attempt.status === 503))
  const stopStarted = Date.now()
  await emulator.stop()
  t.ok(Date.now() - stopStarted < 2000, 'stop does not wait for the silent receiver\'s deadline or the retry ten minutes away')
})
