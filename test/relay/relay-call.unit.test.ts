// One relayed call (src/relay/relay-call.ts) without a server: undici's MockAgent stands in for
// the service, so each kind of answer is made exactly. What goes up (the token, nothing of the
// browser's), what comes down (links rewritten, headers allowlisted, validators bound to the
// viewer), how statuses are sorted, and the per-person cap.
import t from 'tap'
import { MockAgent } from 'undici'
import { createRelay, RelayBusyError } from '../../src/relay/relay-call.js'
import { createValidatorBinding } from '../../src/relay/validators.js'
import { RELAY_OPERATIONS } from '../../src/relay/operations.js'
import { upstreamRequestFor } from '../../src/relay/upstream-request.js'
import { UpstreamError } from '../../src/media/upstream-error.js'

const TENANT = 'https://tenant.media.example'
const target = { apiUrl: `${TENANT}/api`, publicApiUrl: 'https://media.example.org/api' }
const operation = (name: string) => {
  const found = RELAY_OPERATIONS.find((candidate) => candidate.name === name)
  if (found === undefined) throw new Error(name)
  return found
}
const contents = upstreamRequestFor(operation('folder_contents'), { params: { folder_id: '0' }, query: {}, body: undefined, headers: {} })

function setUp (maxInFlightPerViewer = 8) {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(TENANT)
  const calls: Array<{ operation: string, status: number }> = []
  const relay = createRelay({
    dispatcher: agent,
    timeoutMs: 2_000,
    maxInFlightPerViewer,
    validators: createValidatorBinding(['relay-call-test-secret-0123456789-abcdef']),
    onCall: (name, status) => { calls.push({ operation: name, status }) }
  })
  t.teardown(async () => { await agent.close() })
  return { pool, relay, calls }
}

async function text (body: unknown): Promise<string> {
  if (body === undefined) return ''
  if (Buffer.isBuffer(body)) return body.toString('utf8')
  const chunks: Buffer[] = []
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}

t.test('the token goes up, nothing of the browser\'s; links come back through media-bff, headers allowlisted', async (t) => {
  const { pool, relay, calls } = setUp()
  let sent: Record<string, string> = {}
  pool.intercept({ path: '/api/folders/0/contents', method: 'GET' }).reply((options) => {
    sent = options.headers as Record<string, string>
    return { statusCode: 200, data: JSON.stringify({ folders: [{ folder_id: 7, api: { self: `${TENANT}/api/folders/7` } }] }), responseOptions: { headers: { 'content-type': 'application/json', etag: '"v1"', 'set-cookie': 'affinity=1', server: 'service' } } }
  })
  const answer = await relay(contents, 'the-access-token', target, 'user:default:42')
  t.equal(answer.status, 200)
  t.same(JSON.parse(await text(answer.body)), { folders: [{ folder_id: 7, api: { self: 'https://media.example.org/api/folders/7' } }] }, 'the tenant\'s link rewritten')
  t.equal(sent.authorization, 'Bearer the-access-token')
  t.notOk('cookie' in sent || 'x-csrf' in sent || 'origin' in sent, 'nothing of the browser\'s')
  t.notOk('set-cookie' in answer.headers || 'server' in answer.headers, 'no header of the service\'s beyond the allowlist')
  t.match(answer.headers.etag, /^W\/"[\w-]+\.ev1"$/, 'a weak validator, bound to the viewer')
  t.same(calls, [{ operation: 'folder_contents', status: 200 }])
})

t.test('statuses sorted: a refusal keeps its status; a 401 invalid_token is for the caller\'s refresh; 5xx and nonsense are the service\'s fault', async (t) => {
  const { pool, relay } = setUp()
  const json = { 'content-type': 'application/json' }
  pool.intercept({ path: '/api/folders/0/contents', method: 'GET' }).reply(404, JSON.stringify({ error: 'not_found', user_message: 'No such folder.' }), { headers: json })
  pool.intercept({ path: '/api/folders/0/contents', method: 'GET' }).reply(401, JSON.stringify({ error: 'invalid_token' }), { headers: { ...json, 'www-authenticate': 'Bearer error="invalid_token"' } })
  pool.intercept({ path: '/api/folders/0/contents', method: 'GET' }).reply(502, 'bad gateway')
  pool.intercept({ path: '/api/folders/0/contents', method: 'GET' }).reply(200, 'not json', { headers: json })
  const refused = await relay(contents, 'token', target, 'viewer').catch((error: unknown) => error)
  t.match(refused, { failure: 'refused', status: 404 })
  const unauthorized = await relay(contents, 'token', target, 'viewer').catch((error: unknown) => error)
  t.ok(unauthorized instanceof UpstreamError && unauthorized.isUnauthorized, 'invalid_token: refresh and retry')
  t.match(await relay(contents, 'token', target, 'viewer').catch((error: unknown) => error), { failure: 'http', status: 502 })
  t.match(await relay(contents, 'token', target, 'viewer').catch((error: unknown) => error), { failure: 'malformed' })
})

t.test('at most maxInFlightPerViewer calls of one person at once; others are not held up', async (t) => {
  const { pool, relay } = setUp(1)
  pool.intercept({ path: '/api/folders/0/contents', method: 'GET' }).reply(200, '{}', { headers: { 'content-type': 'application/json' } }).delay(300)
  pool.intercept({ path: '/api/folders/0/contents', method: 'GET' }).reply(200, '{}', { headers: { 'content-type': 'application/json' } })
  const first = relay(contents, 'token', target, 'alice')
  await t.rejects(relay(contents, 'token', target, 'alice'), RelayBusyError, 'alice\'s second call waits for none: 429')
  t.equal((await relay(contents, 'token', target, 'bob')).status, 200, 'bob has a budget of his own')
  t.equal((await first).status, 200)
})
