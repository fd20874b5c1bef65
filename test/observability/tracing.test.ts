// OpenTelemetry tracing (docs/guide/operate.md, "Tracing and request ids"), as an operator switches
// it on: media-bff's production entry with the standard variables pointing at a real OTLP receiver,
// in both protocols. A traceparent a trusted proxy sends is joined (anyone else's starts a trace of
// its own, and forces no sampling), the calls to the media service
// and its token endpoint are client spans carrying the trace on (the emulator sees it), the
// operations that matter are spans of their own with their outcome, log lines name the trace,
// and no secret is in any span. With tracing off, no part of the SDK is even loaded.
import t from 'tap'
import { createRequire } from 'node:module'
import { SecretLedger } from '../hardening/secrets.js'
import { startStack } from '../helpers/bff.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { openChannel } from '../helpers/event-stream.js'
import { signIn } from '../helpers/sign-in.js'
import { signedWebhook } from '../helpers/webhooks.js'
import type { ReceivedSpan } from '../helpers/otlp-receiver.js'
import { ancestry, newTraceparent, startTracedStack } from './traced-stack.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'
const SERVER = 2
const CLIENT = 3
const CONTENT_TYPES = { 'http/protobuf': 'application/x-protobuf', 'http/json': 'application/json' } as const

const named = (spans: ReceivedSpan[], name: string): ReceivedSpan[] => spans.filter((span) => span.name === name)
const clientCall = (spans: ReceivedSpan[], path: string): ReceivedSpan | undefined => spans.find((span) => span.kind === CLIENT && span.attributes['url.path'] === path)

for (const protocol of ['http/protobuf', 'http/json'] as const) {
  t.test(`${protocol}: one trace from a trusted proxy's traceparent through register to the media service, with no secret in it`, async (t) => {
    // The test's client connects from loopback, which this deployment lists as its proxy.
    const { receiver, emulator, bff, browser: newBrowser } = await startTracedStack(t, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, TRUST_PROXY: 'loopback' })
    const browser = newBrowser()
    const ledger = new SecretLedger()
    t.equal((await ledger.signIn(browser)).callback.status, 302)

    const { traceparent, traceId, parentId } = newTraceparent()
    // A client's tracestate passed on by the proxy is the client's choice: never joined.
    const register = await browser.post('/uploads/register', { folder_id: 0, title: 'Traced' }, { traceparent, tracestate: 'evil=client-chosen' })
    t.equal(register.status, 200)
    const requestId = String(register.headers['x-request-id'])
    const { ulid, url_upload_direct: uploadUrl } = register.json() as { ulid: string, url_upload_direct: string }
    for (const [name, value] of new URL(uploadUrl).searchParams) ledger.add(`upload URL's ${name}`, value)
    await ledger.addEmulator(emulator)

    // The three end one after another and may come in separate batches: wait for all of them.
    const spans = await receiver.waitFor((all) => {
      const ours = all.filter((span) => span.traceId === traceId)
      return clientCall(ours, '/api/upload/id') !== undefined && ours.some((span) => span.kind === SERVER) && named(ours, 'upload register').length > 0
    })
    const trace = spans.filter((span) => span.traceId === traceId)
    const server = trace.find((span) => span.kind === SERVER)
    t.match(server, {
      name: 'POST /uploads/register',
      parentSpanId: parentId,
      attributes: { 'http.route': '/uploads/register', 'url.path': '/uploads/register', 'http.response.status_code': 200, 'media_bff.request_id': requestId }
    }, 'the request joins the proxy\'s trace: its server span is the caller\'s child')
    const operation = named(trace, 'upload register')[0]
    t.match(operation, { attributes: { 'media_bff.tenant': 'default', 'media_bff.upload.folder_id': 0, 'media_bff.upload.ulid': ulid } }, 'the registration is a span of its own')
    const call = clientCall(trace, '/api/upload/id')
    t.match(call, { kind: CLIENT, name: 'POST', attributes: { 'http.request.method': 'POST', 'http.response.status_code': 200, 'url.full': `${emulator.baseUrl}/api/upload/id` } }, 'the call to the media service is a client span')
    const chain = call === undefined ? [] : ancestry(trace, call)
    t.ok(chain.includes(operation as ReceivedSpan) && chain.at(-1) === server, 'under the registration, under the request')

    const received = emulator.receivedRequests().find((request) => request.path === '/api/upload/id')
    t.equal(received?.headers.traceparent, `00-${traceId}-${call?.spanId ?? ''}-01`, 'the media service received the trace, its caller the client span')
    t.equal(received?.headers['x-request-id'], requestId, 'and the request id')
    t.equal(received?.headers.tracestate, undefined, 'but no tracestate, even from a trusted proxy')

    const line = await bff.waitForLog((log) => log.reqId === requestId && log.msg === 'request completed')
    t.equal(line.trace_id, traceId, 'the request\'s log line names the trace')
    t.ok(trace.some((span) => span.spanId === line.span_id), 'and one of its spans')

    t.match(server?.resource, { 'service.name': 'media-bff-under-test', 'service.version': /^\d+\.\d+\.\d+/ }, 'OTEL_SERVICE_NAME, read by the SDK')
    t.same([...new Set(receiver.contentTypes())], [CONTENT_TYPES[protocol]], `exported in ${protocol}`)
    const everything = receiver.spans()
    t.ok(ledger.size >= 6, `searched for ${JSON.stringify(ledger.kinds())}`)
    t.same(ledger.leaksIn(JSON.stringify(everything)), [], 'no token, code, cookie, secret or signature in any span, the sign-in\'s included')
    t.same(ledger.leaksIn(bff.logs().map((log) => JSON.stringify(log)).join('\n')), [], 'nor in any log line')
    const callback = everything.find((span) => span.kind === SERVER && span.attributes['http.route'] === '/auth/callback')
    t.equal(callback?.attributes['url.path'], '/auth/callback', 'the callback\'s path is recorded without its query')
  })
}

t.test('a client that is no trusted proxy chooses nothing of the trace: not its id, not its sampling, not its tracestate', async (t) => {
  const { receiver, emulator, browser: newBrowser } = await startTracedStack(t, { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })
  const browser = newBrowser()
  t.equal((await signIn(browser)).callback.status, 302)
  const { traceparent, traceId } = newTraceparent()
  const headers = { traceparent, tracestate: 'vendor=chosen-by-the-client', baggage: 'user=someone-else' }
  const register = await browser.post('/uploads/register', { folder_id: 0 }, headers)
  t.equal(register.status, 200)
  const received = emulator.receivedRequests().find((request) => request.path === '/api/upload/id')
  t.notMatch(String(received?.headers.traceparent), traceId, 'the call to the service is not in the client\'s trace')
  t.equal(received?.headers.tracestate, undefined, 'its tracestate does not go on')
  t.equal(received?.headers.baggage, undefined, 'nor its baggage')
  // A sampled traceparent would force sampling under a parent-based sampler if it were joined:
  // with no trace sampled at the root, nothing is recorded.
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.same(receiver.spans().filter((span) => span.traceId === traceId || span.attributes['http.route'] === '/uploads/register'), [], 'its sampled flag sampled nothing')
})

t.test('a client\'s traceparent is a link at most: the request is a trace of its own', async (t) => {
  const { receiver, emulator, browser: newBrowser } = await startTracedStack(t)
  const browser = newBrowser()
  t.equal((await signIn(browser)).callback.status, 302)
  const { traceparent, traceId, parentId } = newTraceparent()
  t.equal((await browser.post('/uploads/register', { folder_id: 0 }, { traceparent, tracestate: 'vendor=chosen-by-the-client' })).status, 200)
  const spans = await receiver.waitFor((all) => all.some((span) => span.kind === SERVER && span.attributes['http.route'] === '/uploads/register') && clientCall(all, '/api/upload/id') !== undefined)
  const server = spans.find((span) => span.kind === SERVER && span.attributes['http.route'] === '/uploads/register')
  t.not(server?.traceId, traceId, 'a new trace')
  t.equal(server?.parentSpanId, '', 'with no parent')
  t.match(server?.links, [{ traceId, spanId: parentId }], 'linked to the context the client named')
  const received = emulator.receivedRequests().find((request) => request.path === '/api/upload/id')
  t.match(received?.headers.traceparent, new RegExp(`^00-${server?.traceId ?? 'none'}-`), 'the service gets media-bff\'s trace')
  t.equal(received?.headers.tracestate, undefined, 'and nothing of the client\'s tracestate')
})

t.test('the operations that matter are spans with their outcome: sign-in, code exchange, refresh, finish, relay, webhooks, live channel', async (t) => {
  // Access tokens that must be refreshed after half a second.
  const { receiver, emulator, bff, browser: newBrowser } = await startTracedStack(t, { WEBHOOK_KEYS: WEBHOOK_KEY }, { accessTokenTtl: 1 })
  const browser = newBrowser()
  const { callback } = await signIn(browser)
  t.equal(callback.status, 302)
  const live = await openChannel(browser)
  t.teardown(live.close)
  await live.waitFor('ready')

  await new Promise((resolve) => setTimeout(resolve, 700))
  // Three calls at once with a token due: one refresh, led by one of them, joined by the others
  // while the token endpoint takes its time.
  emulator.injectFault({ endpoint: 'token', delayMs: 500 })
  const listings = await Promise.all([0, 1, 2].map(async () => await browser.get('/api/folders/0/contents')))
  emulator.clearFaults()
  t.same(listings.map((answer) => answer.status), [200, 200, 200])

  const record = (await browser.post('/uploads/register', { folder_id: 0, title: 'Clip' })).json()
  t.equal((await uploadDirect(record.url_upload_direct, 'clip.mp4', 'not really a video')).status, 200)
  const finished = await browser.post(record.finish_url)
  t.equal(finished.status, 200)
  const fileId = Number(finished.json().files[0].file_id)
  const webhook = await newBrowser().fetch('POST', '/webhooks/media', { headers: { 'content-type': 'application/json' }, body: signedWebhook(WEBHOOK_KEY, { fileId }) })
  t.equal(webhook.status, 202)
  // The follow-up goes on after the 202 and reads the file with the person's grant: the sign-out
  // waits for it, or it would find the grant gone.
  await receiver.waitFor((all) => named(all, 'webhook follow-up').length > 0)
  t.equal((await browser.post('/auth/logout')).status, 200)

  // The sign-out's server span ends after the channel it closed: it may come in a later batch.
  const spans = await receiver.waitFor((all) => ['webhook follow-up', 'live channel close'].every((name) => named(all, name).length > 0) &&
    all.some((span) => span.kind === SERVER && span.attributes['http.route'] === '/auth/logout'))
  const one = (name: string): ReceivedSpan | undefined => {
    const found = named(spans, name)
    t.equal(found.length, 1, `one span ${name}`)
    return found[0]
  }
  t.match(one('sign-in'), { attributes: { 'media_bff.tenant': 'default', 'media_bff.sign_in.scopes': ['basic', 'user.info', 'upload', 'manage'] } })
  const exchange = one('code exchange')
  t.match(one('sign-in callback'), { attributes: { 'media_bff.outcome': 'signed_in', 'media_bff.tenant': 'default' } })
  t.ok(clientCall(spans.filter((span) => span.parentSpanId === exchange?.spanId), '/api/oauth2/token'), 'the token endpoint call is the code exchange\'s client span')

  // The three listings' own refreshes: each token lives a second, so a slow machine may see one
  // more refresh later on (the registration, the finish or the follow-up), in a trace of its own.
  const listingTraces = new Set(spans.filter((span) => span.kind === SERVER && span.attributes['url.path'] === '/api/folders/0/contents').map((span) => span.traceId))
  t.equal(listingTraces.size, 3, 'the three listings, each a trace')
  const refreshes = named(spans, 'token refresh').filter((span) => listingTraces.has(span.traceId))
  t.same(refreshes.map((span) => span.attributes['media_bff.refresh.single_flight']).sort(), ['joined', 'joined', 'led'], 'one refresh led, two joined it')
  const led = refreshes.find((span) => span.attributes['media_bff.refresh.single_flight'] === 'led')
  t.equal(led?.attributes['media_bff.outcome'], 'refreshed', 'the leader says what came of it')
  t.ok(spans.some((span) => span.kind === CLIENT && span.parentSpanId === led?.spanId && span.attributes['url.path'] === '/api/oauth2/token'), 'the leader\'s token endpoint call is its client span')

  const relayed = named(spans, 'relay folder_contents')
  t.equal(relayed.length, 3)
  t.match(relayed[0], { attributes: { 'media_bff.relay.operation': 'folder_contents', 'media_bff.relay.status': 200 } })
  t.match(one('upload finish'), { attributes: { 'media_bff.tenant': 'default', 'media_bff.upload.ulid': record.ulid, 'media_bff.upload.files': 1 } })

  const intake = one('webhook intake')
  t.match(intake, { attributes: { 'media_bff.outcome': 'accepted', 'media_bff.webhook.event': 'file_transcode', 'media_bff.tenant': 'default' } })
  const followUp = one('webhook follow-up')
  t.match(followUp, { traceId: intake?.traceId, parentSpanId: intake?.spanId, attributes: { 'media_bff.outcome': /^(announced|already_told)$/, 'media_bff.webhook.id': intake?.attributes['media_bff.webhook.id'] } }, 'the follow-up, after the answer, goes on in the intake\'s trace')
  t.ok(clientCall(spans.filter((span) => span.traceId === intake?.traceId), `/api/files/${fileId}`), 'its call for the file is part of it')

  const opened = one('live channel open')
  t.match(opened, { attributes: { 'media_bff.outcome': 'opened' } })
  const closed = one('live channel close')
  t.match(closed, { attributes: { 'media_bff.outcome': 'session_ended' }, links: [{ traceId: opened?.traceId, spanId: opened?.spanId }] }, 'closed by the sign-out, linked to its opening')
  t.ok((closed?.attributes['media_bff.live.open_seconds'] as number) > 0.5, 'with how long it was open')
  const logout = spans.find((span) => span.kind === SERVER && span.attributes['http.route'] === '/auth/logout')
  t.equal(closed?.traceId, logout?.traceId, 'in the sign-out\'s trace')
  t.notOk(spans.some((span) => ['/healthz', '/readyz', '/metrics'].includes(String(span.attributes['http.route']))), 'probes and scrapes are not traced')
  const probes = new Set(bff.logs().filter((log) => ['/healthz', '/readyz'].includes(String((log.req as { path?: string } | undefined)?.path))).map((log) => log.reqId))
  const untraced = bff.logs().filter((log) => log.msg === 'request completed' && !probes.has(log.reqId) && typeof log.trace_id !== 'string')
  t.same(untraced, [], 'every other request\'s log line names its trace')
})

t.test('with tracing off, nothing of the SDK is loaded, and log lines carry no trace ids', async (t) => {
  const stack = await startStack({ env: { OAUTH_SCOPES: 'basic user.info upload', OTEL_SERVICE_NAME: 'ignored', OTEL_TRACES_SAMPLER: 'always_on' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  await signIn(browser)
  t.equal((await browser.post('/uploads/register', { folder_id: 0 }, { traceparent: newTraceparent().traceparent })).status, 200)
  t.equal((await browser.get('/api/folders/0/contents')).status, 200)
  const loaded = Object.keys(createRequire(import.meta.url).cache)
  t.ok(loaded.some((file) => file.includes('/node_modules/fastify/')), 'the search sees the packages loaded')
  for (const sdk of ['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace', '@opentelemetry/resources', '@opentelemetry/instrumentation', '@opentelemetry/context-async-hooks']) {
    t.notOk(loaded.some((file) => file.includes(`/node_modules/${sdk}`)), `${sdk} is not loaded`)
  }
  t.notOk(stack.bff.logs.some((line) => line.includes('trace_id')), 'no trace_id in any log line')
  t.notOk(stack.emulator.receivedRequests().some((request) => request.headers.traceparent !== undefined), 'no traceparent goes to the service: nothing is joined')
})
