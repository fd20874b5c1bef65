// The webhook test hooks: endpoints added, listed and cleared over HTTP and through
// RunningEmulator, every field checked (400 otherwise); the options and EMULATOR_WEBHOOK_*
// variables that configure endpoints.
import t from 'tap'
import { optionsFromEnv } from '../../src/emulator/env-options.js'
import { startEmulator } from '../../src/emulator/index.js'
import { apiCall, errorShape, startTestEmulator } from '../helpers/emulator.js'

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

  const emulator = await startTestEmulator(t, optionsFromEnv({ EMULATOR_WEBHOOK_URL: 'http://127.0.0.1:9/hooks', EMULATOR_WEBHOOK_KEY: 'shared-key' }))
  t.same((await apiCall(`${emulator.baseUrl}/__emulator/webhooks`)).body.webhooks.map((endpoint: { user: string, url: string }) => [endpoint.user, endpoint.url]), [['alice', 'http://127.0.0.1:9/hooks'], ['bob', 'http://127.0.0.1:9/hooks']])
})
