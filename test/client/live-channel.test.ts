// The browser module's live channel (public/client/live-events.ts) against a stand-in fetch that
// answers as media-bff does: typed events from the stream, a reconnect with Last-Event-ID when an
// instance closes it, Retry-After honoured on 503, a stop for good on 401 (the session watch is
// told, with the reason when the channel said it), a new session after a sign-in in the same
// browser, and a silent connection noticed by its missing heartbeats. The channel against the
// real media-bff and nginx: test/production/live-events.test.ts.
import t, { type Test } from 'tap'
import { MediaBffError } from '../../public/client/errors.js'
import { openLiveChannel, type LiveEvents } from '../../public/client/live-events.js'

interface Sent { headers: Headers, at: number }
type Answer = (request: Sent, signal: AbortSignal) => Response

/** A stream the test writes to; `end()` closes it as an instance shutting down would. */
function stream (): { body: ReadableStream<Uint8Array>, write: (text: string) => void, end: () => void } {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined
  const body = new ReadableStream<Uint8Array>({ start (c) { controller = c } })
  const encoder = new TextEncoder()
  return {
    body,
    write: (text) => { controller?.enqueue(encoder.encode(text)) },
    end: () => { controller?.close() }
  }
}
const eventStream = (body: ReadableStream<Uint8Array>): Response => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
const ready = (heartbeatMs = 20_000): string => `retry: 50\nevent: ready\ndata: {"heartbeat_ms":${heartbeatMs}}\n\n`

function stubFetch (t: Test, answers: Answer[]): Sent[] {
  const sent: Sent[] = []
  const original = globalThis.fetch
  globalThis.fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
    const request = { headers: new Headers(init.headers), at: Date.now() }
    sent.push(request)
    const answer = answers.shift()
    if (answer === undefined) return await new Promise<Response>(() => {})
    return answer(request, init.signal as AbortSignal)
  }
  t.teardown(() => { globalThis.fetch = original })
  return sent
}

function listen (channel: ReturnType<typeof openLiveChannel>) {
  const seen: { [K in keyof LiveEvents]: Array<LiveEvents[K]> } = { open: [], file: [], ended: [], resync: [], paused: [], error: [] }
  for (const type of Object.keys(seen) as Array<keyof LiveEvents>) channel.on(type, (event) => { (seen[type] as unknown[]).push(event) })
  return seen
}
const until = async (check: () => boolean): Promise<void> => {
  const deadline = Date.now() + 5000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

t.test('typed events; an instance closing the stream: a reconnect that resumes with Last-Event-ID', async (t) => {
  const first = stream()
  const second = stream()
  const sent = stubFetch(t, [() => eventStream(first.body), () => eventStream(second.body)])
  const channel = openLiveChannel({ root: 'https://media.example.org', timeoutMs: 1000 })
  t.teardown(channel.close)
  const seen = listen(channel)
  first.write(ready())
  await until(() => seen.open.length === 1)
  t.equal(channel.state, 'open')
  first.write(': keep-alive\n\nid: 42.000.abc\nevent: file\ndata: {"file_id":7,"title":"Clip","status":"ready","event":"file_transcode"}\n\n')
  first.write('event: resync\ndata: {}\n\n')
  await until(() => seen.resync.length === 1)
  t.same(seen.file, [{ file: { file_id: 7, title: 'Clip', status: 'ready' }, event: 'file_transcode' }])
  t.equal(sent[0]?.headers.get('last-event-id'), null, 'the first connection names no event')
  first.end()
  second.write(ready())
  await until(() => seen.open.length === 2)
  t.same(seen.open, [{ reconnected: false }, { reconnected: true }])
  t.equal(sent[1]?.headers.get('last-event-id'), '42.000.abc', 'the reconnect resumes after the last event seen')
  t.same(seen.error, [], 'a clean close is no error')
})

t.test('503 with Retry-After: waits that long; 401: stops for good and tells the session watch', async (t) => {
  const lost: MediaBffError[] = []
  const sent = stubFetch(t, [
    () => json(503, { error: 'unavailable', message: 'restarting' }, { 'retry-after': '1' }),
    () => json(401, { error: 'login_required', message: 'Please sign in.', login_url: '/auth/login' })
  ])
  const channel = openLiveChannel({ root: '', timeoutMs: 1000, onSignInLost: (error) => lost.push(error) })
  const seen = listen(channel)
  await until(() => seen.error.length === 2)
  t.equal(seen.error[0]?.error.code, 'unavailable')
  t.equal(seen.error[0]?.retryInMs, 1000, 'Retry-After, in ms')
  t.ok((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0) >= 950, 'the second attempt waited')
  t.equal(seen.error[1]?.error.code, 'login_required')
  t.equal(seen.error[1]?.retryInMs, undefined, 'no further attempt')
  t.equal(channel.state, 'closed')
  t.same(lost.map((error) => error.code), ['login_required'])
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(sent.length, 2)
})

t.test('the session ends: the channel closes and says why; a new sign-in here: it reconnects', async (t) => {
  const lost: MediaBffError[] = []
  const first = stream()
  const second = stream()
  const sent = stubFetch(t, [() => eventStream(first.body), () => eventStream(second.body)])
  const channel = openLiveChannel({ root: '', timeoutMs: 1000, onSignInLost: (error) => lost.push(error) })
  const seen = listen(channel)
  first.write(ready())
  await until(() => seen.open.length === 1)
  first.write('event: session\ndata: {"ended":true,"reason":"replaced"}\n\n')
  await until(() => sent.length === 2)
  t.ok((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0) >= 1000, 'after a moment for the new cookie to arrive')
  second.write(ready())
  await until(() => seen.open.length === 2)
  t.same(seen.ended, [], 'replaced is not an end')
  second.write('event: session\ndata: {"ended":true,"reason":"expired"}\n\n')
  await until(() => seen.ended.length === 1)
  t.same(seen.ended, [{ reason: 'expired' }])
  t.equal(channel.state, 'closed')
  t.equal(lost[0]?.details.reason, 'expired', 'the session watch learns why')
})

t.test('a connection that goes silent for three heartbeats is dropped and made again', async (t) => {
  const quiet = stream()
  const next = stream()
  const sent = stubFetch(t, [() => eventStream(quiet.body), () => eventStream(next.body)])
  const channel = openLiveChannel({ root: '', timeoutMs: 1000 })
  t.teardown(channel.close)
  const seen = listen(channel)
  quiet.write(ready(30))
  await until(() => seen.error.length === 1)
  t.equal(seen.error[0]?.error.code, 'network_error')
  next.write(ready())
  await until(() => seen.open.length === 2)
  t.equal(sent.length, 2)
})

t.test('close() stops everything, mid-stream or while waiting to reconnect', async (t) => {
  const open = stream()
  const sent = stubFetch(t, [() => eventStream(open.body), () => json(503, { error: 'unavailable', message: 'x' }, { 'retry-after': '1' })])
  const channel = openLiveChannel({ root: '', timeoutMs: 1000 })
  const seen = listen(channel)
  open.write(ready())
  await until(() => seen.open.length === 1)
  open.end()
  await until(() => seen.error.length === 1)
  channel.close()
  await new Promise((resolve) => setTimeout(resolve, 1200))
  t.equal(sent.length, 2, 'no attempt after close')
  t.equal(channel.state, 'closed')
  t.ok(seen.error[0]?.error instanceof MediaBffError)
})

t.test('Last-Event-ID names the last event that arrived whole, and outlives a connection that named none', async (t) => {
  const first = stream()
  const second = stream()
  const sent = stubFetch(t, [() => eventStream(first.body), () => eventStream(second.body), () => eventStream(stream().body)])
  const channel = openLiveChannel({ root: '', timeoutMs: 1000 })
  t.teardown(channel.close)
  const seen = listen(channel)
  first.write(`id: r1.000.a\n${ready()}`)
  await until(() => seen.open.length === 1)
  // Cut off in the middle of an event: the page never had it, so it must come again.
  first.write('id: 43.000.b\nevent: file\ndata: {"file_id":8}\n')
  first.end()
  await until(() => sent.length === 2)
  t.equal(sent[1]?.headers.get('last-event-id'), 'r1.000.a', 'the half-read event does not count as seen')
  second.write(ready())
  await until(() => seen.open.length === 2)
  second.end()
  await until(() => sent.length === 3)
  t.equal(sent[2]?.headers.get('last-event-id'), 'r1.000.a', 'a connection that named no id keeps the one before')
  t.same(seen.file, [])
})

t.test('a tab that gave its place to a newer one waits to be shown before it connects again', async (t) => {
  const page = new EventTarget() as EventTarget & { visibilityState: string }
  page.visibilityState = 'hidden'
  const global = globalThis as { document?: unknown }
  global.document = page
  t.teardown(() => { delete global.document })
  const first = stream()
  const second = stream()
  const sent = stubFetch(t, [() => eventStream(first.body), () => eventStream(second.body)])
  const channel = openLiveChannel({ root: '', timeoutMs: 1000 })
  t.teardown(channel.close)
  const seen = listen(channel)
  first.write(`id: r1.000.a\n${ready()}`)
  await until(() => seen.open.length === 1)
  first.write('event: closed\ndata: {"reason":"session_limit"}\n\n')
  first.end()
  await until(() => seen.paused.length === 1)
  t.same(seen.paused, [{ reason: 'session_limit' }])
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(sent.length, 1, 'out of view: no attempt, however long')
  t.equal(channel.state, 'connecting')
  page.dispatchEvent(new Event('visibilitychange'))
  t.equal(sent.length, 1, 'a change that leaves it hidden is not enough')
  page.visibilityState = 'visible'
  page.dispatchEvent(new Event('visibilitychange'))
  await until(() => sent.length === 2)
  t.equal(sent[1]?.headers.get('last-event-id'), 'r1.000.a', 'and it resumes where it was')
  second.write(ready())
  await until(() => seen.open.length === 2)
  t.same(seen.error, [], 'giving its place is no error')
})

t.test('a tab in view that gave its place waits a while, and close() ends the wait', async (t) => {
  const first = stream()
  const sent = stubFetch(t, [() => eventStream(first.body)])
  const channel = openLiveChannel({ root: '', timeoutMs: 1000 })
  const seen = listen(channel)
  first.write(ready())
  await until(() => seen.open.length === 1)
  first.write('event: closed\ndata: {"reason":"session_limit"}\n\n')
  await until(() => seen.paused.length === 1)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(sent.length, 1, 'no place taken back at once')
  channel.close()
  t.equal(channel.state, 'closed')
})
