// Request ids (docs/guide/operate.md, "Tracing and request ids"): the X-Request-Id of a proxy in
// TRUST_PROXY is kept, anyone else's is replaced by one made here, and either way the id is
// answered, logged as reqId and sent on with every call made for the request: to the token
// endpoint, the API, the relay, and a webhook's follow-up, which runs after the webhook was
// answered.
import t from 'tap'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { startStack, type TestBff } from '../helpers/bff.js'
import { consent } from '../helpers/sign-in.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { signedWebhook } from '../helpers/webhooks.js'
import type { HttpResponse } from '../helpers/http-client.js'
import type { RunningEmulator } from '../../emulator/index.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const answeredId = (response: Pick<HttpResponse, 'headers'>): string => String(response.headers['x-request-id'])
/** The request ids of media-bff's log lines about finished requests. */
const loggedIds = (bff: TestBff): string[] => bff.logs.map((line) => JSON.parse(line) as { reqId?: string, msg?: string }).filter((line) => line.msg === 'request completed').map((line) => line.reqId ?? '')
/** What the service received, by path, with the request id it carried. */
const receivedIds = (emulator: RunningEmulator, path: string): string[] => emulator.receivedRequests().filter((received) => received.path.split('?')[0] === path).map((received) => String(received.headers['x-request-id']))

t.test('from a client that is not a trusted proxy, an X-Request-Id is replaced: one is made, answered and logged', async (t) => {
  const stack = await startStack()
  t.teardown(stack.close)
  const { bff } = stack
  const first = await bff.browser({ 'x-request-id': 'chosen-by-the-client' }).get('/auth/session')
  const second = await bff.browser({ 'x-request-id': 'chosen-by-the-client' }).get('/auth/session')
  t.match(answeredId(first), UUID, 'a new random id (a UUID) is answered')
  t.not(answeredId(first), answeredId(second), 'each request its own')
  t.ok(loggedIds(bff).includes(answeredId(first)), 'and logged as reqId')
  t.notOk(bff.logs.some((line) => line.includes('chosen-by-the-client')), 'the client\'s text is in no log line')
})

t.test('a trusted proxy\'s id is kept and goes on with every call made for the request; a malformed one is replaced', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: 'loopback', OAUTH_SCOPES: 'basic user.info upload', WEBHOOK_KEYS: WEBHOOK_KEY } })
  t.teardown(stack.close)
  const { bff, emulator } = stack
  const browser = bff.browser()
  // Each request of the sign-in carries an id of its own, as a proxy gives each request one.
  let counter = 0
  const proxied = (): Record<string, string> => ({ 'x-request-id': `nginx-${String(++counter).padStart(4, '0')}` })

  const login = await browser.get('/auth/login', proxied())
  t.equal(answeredId(login), 'nginx-0001', 'kept and answered')
  const callbackUrl = new URL(await consent(browser, login.location ?? ''))
  const callback = await browser.get(`${bff.url}${callbackUrl.pathname}${callbackUrl.search}`, proxied())
  t.equal(callback.status, 302)
  t.same(receivedIds(emulator, '/api/oauth2/token'), ['nginx-0002'], 'the code exchange carries the callback\'s id')
  t.same(receivedIds(emulator, '/api/user/info'), ['nginx-0002'], 'so does the user/info call of the sign-in')

  const register = await browser.post('/uploads/register', { folder_id: 0 }, proxied())
  t.equal(register.status, 200)
  t.same(receivedIds(emulator, '/api/upload/id'), ['nginx-0003'], 'the registration carries the register request\'s id')
  // A body that comes after its headers is read on the socket's own events: the request's id
  // must still be the one its handler's calls carry.
  const late = await request(`${bff.url}/uploads/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf': '1', cookie: browser.cookieHeader() ?? '', 'x-request-id': 'nginx-late-body' },
    body: Readable.from((async function * () {
      await sleep(200)
      yield Buffer.from(JSON.stringify({ folder_id: 0 }))
    })())
  })
  t.equal(late.statusCode, 200)
  await late.body.dump()
  t.same(receivedIds(emulator, '/api/upload/id'), ['nginx-0003', 'nginx-late-body'], 'so does one whose body came late')
  const relayed = await browser.get('/api/folders/0/contents', proxied())
  t.equal(relayed.status, 200)
  t.same(receivedIds(emulator, '/api/folders/0/contents'), ['nginx-0004'], 'a relayed call carries its request\'s id')

  const record = register.json()
  t.equal((await uploadDirect(record.url_upload_direct, 'clip.mp4', 'not really a video')).status, 200)
  const finished = await browser.post(record.finish_url, undefined, proxied())
  t.equal(finished.status, 200)
  const fileId = Number(finished.json().files[0].file_id)
  const webhook = await request(`${bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'nginx-webhook' }, body: signedWebhook(WEBHOOK_KEY, { fileId }) })
  t.equal(webhook.statusCode, 202)
  t.equal(webhook.headers['x-request-id'], 'nginx-webhook')
  await webhook.body.dump()
  await bff.app.live.webhooks.idle()
  t.same(receivedIds(emulator, `/api/files/${fileId}`), ['nginx-webhook'], 'the follow-up, after the answer, carries the webhook\'s id')
  t.ok(['nginx-0001', 'nginx-0002', 'nginx-0003', 'nginx-0004', 'nginx-webhook'].every((id) => loggedIds(bff).includes(id)), 'every one is logged as reqId')

  // Letters, digits and . _ : + / = - only, 128 at most: anything else is replaced.
  for (const malformed of ['two words', 'x'.repeat(129), 'a,b', '<script>', 'Root=1-5759e988;Parent=x', '']) {
    const answer = await bff.browser({ 'x-request-id': malformed }).get('/auth/session')
    t.match(answeredId(answer), UUID, `replaced: ${JSON.stringify(malformed.slice(0, 24))}`)
  }
  t.equal(answeredId(await bff.browser({ 'x-request-id': 'x'.repeat(128) }).get('/auth/session')), 'x'.repeat(128), '128 characters are kept')
})

t.test('every answer names its request: a 404, a refused URL, an error', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: 'loopback' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser({ 'x-request-id': 'kept-0001' })
  t.equal(answeredId(await browser.get('/no/such/route')), 'kept-0001', 'a 404')
  const unreadable = await browser.post('/uploads/%E0%A4%A/finish')
  t.equal(unreadable.status, 400)
  t.equal(answeredId(unreadable), 'kept-0001', 'a URL the router refused')
  t.equal(answeredId(await browser.post('/auth/logout', undefined, { 'x-csrf': '' })), 'kept-0001', 'a refusal of a guard')
})
