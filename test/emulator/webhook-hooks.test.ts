// The webhook test hooks: endpoints added, listed and cleared over HTTP and through
// RunningEmulator, every field checked (400 otherwise); the one-off delivery whose parts can be
// forged or replayed; the options and EMULATOR_WEBHOOK_* variables that configure endpoints.
import t from 'tap'
import { optionsFromEnv } from '../../emulator/env-options.js'
import { startEmulator } from '../../emulator/index.js'
import { apiCall, errorShape, startTestEmulator } from '../helpers/emulator.js'
import { expectedSignature, signedWith, startReceiver, uuidPattern } from './webhook-receiver.js'

const allEvents = ['file_upload', 'file_transcode', 'file_approval', 'file_comment', 'file_push', 'file_qc', 'file_transcribe', 'file_trash', 'folder_trash']

t.test('endpoints are added, listed, replaced and cleared over HTTP and through RunningEmulator', async (t) => {
  const emulator = await startTestEmulator(t)
  const hook = `${emulator.baseUrl}/__emulator/webhooks`
  t.same((await apiCall(hook)).body, { webhooks: [] })
  const added = await apiCall(hook, { method: 'POST', json: { user: 'alice', url: 'http://127.0.0.1:9/a', key: 'k1' } })
  t.equal(added.status, 200)
  t.same(added.body, { webhooks: [{ user: 'alice', url: 'http://127.0.0.1:9/a', key: 'k1', events: allEvents }] }, 'events default to all')
  const form = await apiCall(hook, { method: 'POST', form: { user: 'bob', url: 'https://hooks.example.test/b?x=1', key: 'k2', events: 'file_upload,file_trash' } })
  t.equal(form.status, 200, 'a url-encoded body works too, events as a comma-separated list')
  emulator.addWebhook({ user: 'alice', url: 'http://127.0.0.1:9/a', key: 'k3', events: ['folder_trash'] })
  t.same((await apiCall(hook)).body.webhooks, [
    { user: 'bob', url: 'https://hooks.example.test/b?x=1', key: 'k2', events: ['file_upload', 'file_trash'] },
    { user: 'alice', url: 'http://127.0.0.1:9/a', key: 'k3', events: ['folder_trash'] }
  ], 'the same account and URL again replaces the endpoint')
  t.same((await apiCall(hook, { method: 'DELETE' })).body, { webhooks: [] })
  t.same((await apiCall(hook)).body.webhooks, [])
  emulator.addWebhook({ user: 'bob', url: 'http://127.0.0.1:9/b', key: 'k' })
  emulator.clearWebhooks()
  t.same((await apiCall(hook)).body.webhooks, [], 'clearWebhooks() removes them all')
})

t.test('bad endpoints are 400 and change nothing', async (t) => {
  const emulator = await startTestEmulator(t)
  const hook = `${emulator.baseUrl}/__emulator/webhooks`
  const good = { user: 'alice', url: 'http://127.0.0.1:9/a', key: 'k' }
  const bad: Array<[string, unknown]> = [
    ['no user', { url: good.url, key: 'k' }],
    ['unknown user', { ...good, user: 'mallory' }],
    ['no url', { user: 'alice', key: 'k' }],
    ['ftp url', { ...good, url: 'ftp://127.0.0.1/a' }],
    ['relative url', { ...good, url: '/hooks' }],
    ['url with a fragment', { ...good, url: 'http://127.0.0.1:9/a#x' }],
    ['no key', { user: 'alice', url: good.url }],
    ['empty key', { ...good, key: '' }],
    ['key not a string', { ...good, key: 42 }],
    ['no events', { ...good, events: [] }],
    ['unknown event', { ...good, events: ['file_upload', 'file_deleted'] }],
    ['events not a list', { ...good, events: 7 }],
    ['unknown field', { ...good, secret: 'x' }],
    ['an array', [good]]
  ]
  for (const [what, body] of bad) {
    const answer = await apiCall(hook, { method: 'POST', json: body })
    t.equal(answer.status, 400, what)
    t.match(answer.body, { ...errorShape, error: 'invalid_request' }, what)
  }
  t.equal((await apiCall(hook, { method: 'POST', form: { ...good, events: 'file_upload,nope' } })).status, 400, 'an unknown event in a form list')
  t.throws(() => { emulator.addWebhook({ user: 'alice', url: 'mailto:x@example.test', key: 'k' }) }, /url/, 'addWebhook checks the same')
  t.same((await apiCall(hook)).body.webhooks, [], 'nothing was added')
})

t.test('send delivers once, now, and answers what the endpoint answered', async (t) => {
  const receiver = await startReceiver(t, [418])
  const other = await startReceiver(t, [204])
  const emulator = await startTestEmulator(t, { webhooks: [{ user: 'alice', url: receiver.url, key: 'alice-key' }, { user: 'alice', url: other.url, key: 'other-key' }] })
  const send = `${emulator.baseUrl}/__emulator/webhooks/send`
  const answer = await apiCall(send, { method: 'POST', json: { user: 'alice', event: 'file_comment', data: { file_id: 7, comment: 'Nice' } } })
  t.same(answer.body, { status: 418 }, 'the first endpoint of the account, without retries')
  t.equal(receiver.deliveries.length, 1)
  const body = receiver.deliveries[0]?.body
  t.match(body, { id: uuidPattern, event: 'file_comment', api_version: '2024-06-01', data: { file_id: 7, comment: 'Nice' } })
  t.ok(signedWith('alice-key', body), 'computed fields are computed as for any delivery')
  t.same(await emulator.sendWebhook({ user: 'alice', url: other.url, event: 'file_qc', data: null }), { status: 204 }, 'sendWebhook(), to the endpoint at url')
  t.ok(signedWith('other-key', other.deliveries[0]?.body), 'signed with that endpoint\'s key')
  t.match(emulator.webhooksSent(), [
    { id: body.id, event: 'file_comment', user: 'alice', url: receiver.url, attempt: 1, status: 418, body },
    { event: 'file_qc', url: other.url, attempt: 1, status: 204 }
  ], 'both are in the log')
})

t.test('send forges a signature, replays an id and token, and sends a stale timestamp', async (t) => {
  const receiver = await startReceiver(t)
  const emulator = await startTestEmulator(t, { webhooks: [{ user: 'alice', url: receiver.url, key: 'alice-key' }] })
  const deliver = async (overrides: Record<string, unknown>): Promise<any> => {
    const before = receiver.deliveries.length
    const answer = await apiCall(`${emulator.baseUrl}/__emulator/webhooks/send`, { method: 'POST', json: { user: 'alice', event: 'file_upload', data: { file_id: 1 }, ...overrides } })
    t.same(answer.body, { status: 200 })
    t.equal(receiver.deliveries.length, before + 1)
    return receiver.deliveries.at(-1)?.body
  }
  const forged = await deliver({ signature: 'f'.repeat(64) })
  t.equal(forged.signature.signature, 'f'.repeat(64), 'the signature as given')
  t.notOk(signedWith('alice-key', forged))

  const wrongKey = await deliver({ key: 'not-alice-key' })
  t.ok(signedWith('not-alice-key', wrongKey), 'well formed, with another key')
  t.notOk(signedWith('alice-key', wrongKey))

  const original = await deliver({})
  const replayed = await deliver({ id: original.id, timestamp: original.signature.timestamp, token: original.signature.token })
  t.same(replayed, original, 'a replay is the same body, validly signed')

  const stale = await deliver({ timestamp: '1000000000' })
  t.equal(stale.signature.timestamp, '1000000000')
  t.equal(stale.signature.signature, expectedSignature('alice-key', '1000000000', stale.signature.token), 'signed over the stale timestamp')
  t.not(stale.signature.token, original.signature.token, 'a new token when none is given')
})

t.test('bad deliveries are 400', async (t) => {
  const emulator = await startTestEmulator(t, { users: [{ name: 'alice', scopes: ['basic'] }, { name: 'carol', scopes: ['basic'] }], webhooks: [{ user: 'alice', url: 'http://127.0.0.1:9/a', key: 'k' }] })
  const good = { user: 'alice', event: 'file_upload', data: {} }
  const bad: Array<[string, unknown]> = [
    ['unknown user', { ...good, user: 'mallory' }],
    ['an account without endpoints', { ...good, user: 'carol' }],
    ['a url that is not the account\'s endpoint', { ...good, url: 'http://127.0.0.1:9/other' }],
    ['unknown event', { ...good, event: 'file_deleted' }],
    ['no event', { user: 'alice', data: {} }],
    ['no data', { user: 'alice', event: 'file_upload' }],
    ['id not a string', { ...good, id: 5 }],
    ['timestamp not a string', { ...good, timestamp: 1700000000 }],
    ['empty key', { ...good, key: '' }],
    ['unknown field', { ...good, attempt: 2 }]
  ]
  for (const [what, body] of bad) {
    const answer = await apiCall(`${emulator.baseUrl}/__emulator/webhooks/send`, { method: 'POST', json: body })
    t.equal(answer.status, 400, what)
    t.match(answer.body, errorShape, what)
  }
  await t.rejects(emulator.sendWebhook({ ...good, user: 'carol' }), /no webhook endpoint/, 'sendWebhook() checks the same')
  t.same(emulator.webhooksSent(), [], 'nothing was sent')
})

t.test('a receiver that does not answer within 5 s is a status 0', async (t) => {
  const silent = await startReceiver(t, 'silent')
  const emulator = await startTestEmulator(t, { webhooks: [{ user: 'alice', url: silent.url, key: 'k' }] })
  const started = Date.now()
  t.same(await emulator.sendWebhook({ user: 'alice', event: 'file_push', data: {} }), { status: 0 })
  const waited = Date.now() - started
  t.ok(waited >= 4900, `waited for the deadline (${waited} ms)`)
  t.ok(waited < 15_000, 'and not much longer')
})

t.test('options and EMULATOR_WEBHOOK_* configure endpoints, and are checked', async (t) => {
  await t.rejects(startEmulator({ apiPort: 0, uploadPort: 0, webhooks: [{ user: 'alice', url: 'http://127.0.0.1:9/', key: 'k' }, { user: 'mallory', url: 'x', key: '' }] }), /webhooks\[1\]: user/)
  await t.rejects(startEmulator({ apiPort: 0, uploadPort: 0, webhooks: [{ user: 'alice', url: 'http://127.0.0.1:9/', key: 'k', events: ['nope'] }] }), /webhooks\[0\]: events/)
  for (const delays of [[1, 2], [1, 2, 3, 4], [1, -2, 3], [1, 2.5, 3]]) {
    await t.rejects(startEmulator({ apiPort: 0, uploadPort: 0, webhookRetryDelaysMs: delays }), /webhookRetryDelaysMs/, JSON.stringify(delays))
  }

  const fromEnv = optionsFromEnv({ EMULATOR_WEBHOOK_URL: 'http://bff.internal:3000/webhooks/media', EMULATOR_WEBHOOK_KEY: 'shared-key', EMULATOR_PROCESSING_MS: '250' })
  t.same(fromEnv, {
    processingMs: 250,
    webhooks: [{ user: 'alice', url: 'http://bff.internal:3000/webhooks/media', key: 'shared-key' }, { user: 'bob', url: 'http://bff.internal:3000/webhooks/media', key: 'shared-key' }]
  }, 'one endpoint for every fixture user, for every event')
  t.throws(() => optionsFromEnv({ EMULATOR_WEBHOOK_URL: 'http://bff.internal:3000/webhooks/media' }), /EMULATOR_WEBHOOK_KEY: is needed with EMULATOR_WEBHOOK_URL/)
  t.throws(() => optionsFromEnv({ EMULATOR_WEBHOOK_KEY: 'k' }), /EMULATOR_WEBHOOK_URL: is needed/)
  t.throws(() => optionsFromEnv({ EMULATOR_WEBHOOK_URL: 'bff.internal/hooks', EMULATOR_WEBHOOK_KEY: 'k' }), /EMULATOR_WEBHOOK_URL: must be an absolute http\(s\) URL/)
  t.throws(() => optionsFromEnv({ EMULATOR_PROCESSING_MS: 'soon' }), /EMULATOR_PROCESSING_MS/)

  const receiver = await startReceiver(t)
  const emulator = await startTestEmulator(t, optionsFromEnv({ EMULATOR_WEBHOOK_URL: receiver.url, EMULATOR_WEBHOOK_KEY: 'shared-key' }))
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/webhooks`)).body.webhooks.map((endpoint: { user: string, url: string }) => [endpoint.user, endpoint.url]), [['alice', receiver.url], ['bob', receiver.url]])
  t.same(await emulator.sendWebhook({ user: 'bob', event: 'folder_trash', data: { folder_id: 5, name: 'Archive' } }), { status: 200 })
  t.ok(signedWith('shared-key', receiver.deliveries[0]?.body))
})
