// One request through the production topology (docker/nginx.conf in front of a replica, tracing
// on by the standard variables): nginx makes the request's id, whatever the client sent, and
// logs it; media-bff keeps it (nginx is in TRUST_PROXY), answers it, logs it beside the trace
// and sends it on to the media service with the trace. nginx sends none of the browser's trace
// context, so the trace begins at media-bff, and holds no secret. One grep for the id finds all
// three lines.
import { pollUntil } from '../emulator/poll.js'
import t from 'tap'
import { SecretLedger } from '../hardening/secrets.js'
import { startOtlpReceiver } from '../helpers/otlp-receiver.js'
import { newTraceparent, secret } from '../observability/traced-stack.js'
import { startProductionStack } from './stack.js'

const receiver = await startOtlpReceiver()
t.teardown(receiver.close)
const stack = await startProductionStack(t, {
  replicas: 1,
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'media-bff', OTEL_BSP_SCHEDULE_DELAY: '100' },
  // Long enough for the secret search to look for it.
  emulator: { clientSecret: secret() }
})

t.test('nginx\'s log line, media-bff\'s and the service\'s request share one id, and one trace that the browser did not choose goes to the service', async (t) => {
  const browser = stack.browser()
  const ledger = new SecretLedger()
  t.equal((await ledger.signIn(browser)).callback.status, 302)
  const { traceparent, traceId: chosen } = newTraceparent()
  const register = await browser.post('/uploads/register', { folder_id: 0 }, { traceparent, tracestate: 'vendor=chosen', 'x-request-id': 'made-up-by-the-client' })
  t.equal(register.status, 200)
  const id = String(register.headers['x-request-id'])
  t.match(id, /^[0-9a-f]{32}$/, 'the id is nginx\'s $request_id, not what the client sent')
  for (const [name, value] of new URL(register.json().url_upload_direct).searchParams) ledger.add(`upload URL's ${name}`, value)
  await ledger.addEmulator(stack.emulator)

  const [replica] = stack.replicas
  const logged = await replica?.waitForLog((line) => line.reqId === id && line.msg === 'request completed')
  const traceId = String(logged?.trace_id)
  t.match(traceId, /^[0-9a-f]{32}$/, 'media-bff logs the id as reqId, beside the trace')
  t.not(traceId, chosen, 'a trace of media-bff\'s own: nginx passed on none of the browser\'s context')
  // nginx writes its line once the answer has gone out: it may come a moment after the answer.
  const nginxLine = await pollUntil('nginx\'s line', async () => (await stack.nginx.accessLog()).split('\n').filter((line) => line.includes(id)), (lines) => lines.length > 0)
  t.equal(nginxLine.length, 1, 'nginx logs it')
  t.match(nginxLine[0], /"POST \/uploads\/register HTTP\/[\d.]+" 200 .* request_id=[0-9a-f]{32}$/, 'on the request\'s line, as request_id')
  const atService = stack.emulator.receivedRequests().filter((request) => request.headers['x-request-id'] === id)
  t.same(atService.map((request) => request.path), ['/api/upload/id'], 'the service received it with the registration')
  t.match(atService[0]?.headers.traceparent, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`), 'and the trace')
  t.equal(atService[0]?.headers.tracestate, undefined, 'and nothing of the browser\'s tracestate')

  // The client call, the registration and the request end in that order, maybe in separate batches.
  const spans = await receiver.waitFor((all) => [2, 3].every((kind) => all.some((span) => span.traceId === traceId && span.kind === kind)) &&
    all.some((span) => span.traceId === traceId && span.name === 'upload register'))
  const server = spans.find((span) => span.traceId === traceId && span.kind === 2)
  t.match(server, { name: 'POST /uploads/register', parentSpanId: '', attributes: { 'media_bff.request_id': id } }, 'the server span is the trace\'s root, with the request id')
  t.ok(spans.some((span) => span.traceId === traceId && span.name === 'upload register'), 'the registration\'s span is in it')
  t.same(ledger.leaksIn(JSON.stringify(receiver.spans())), [], 'no token, code, cookie, secret or signature in any span')
})
