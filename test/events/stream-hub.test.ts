// This instance's live channels (src/events/stream-hub.ts) over real HTTP connections: messages
// reach the sessions they name and no other, each bound holds (channels per session and per
// instance, bytes queued for a reader that stopped reading), a session's end and its timeout
// close its channels, heartbeats flow, and a reconnect with Last-Event-ID misses nothing.
import t, { type Test } from 'tap'
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { createStreamHub, type DropReason, type StreamHubOptions, type StreamOwner } from '../../src/events/stream-hub.js'
import { newMessageId, type LiveMessage } from '../../src/events/live-message.js'
import { sseReader, type ServerSentEvent } from '../../public/client/sse.js'

const defaults: StreamHubOptions = { maxStreams: 100, maxPerSession: 3, maxPerPerson: 100, maxQueuedBytes: 64 * 1024, heartbeatMs: 60_000, replayWindowMs: 60_000, replayMax: 100, retryMs: 1000 }

interface Opened { events: ServerSentEvent[], comments: () => number, closed: Promise<void>, response: IncomingMessage }

/** A hub behind a real HTTP server: each GET opens a channel for the session its path names. */
async function hubServer (t: Test, options: Partial<StreamHubOptions> = {}, owners: Record<string, Partial<StreamOwner>> = {}, { askFirst = true } = {}) {
  const drops: DropReason[] = []
  const counts: number[] = []
  const hub = createStreamHub({ ...defaults, ...options, onDropped: (reason) => drops.push(reason), onCount: (count) => counts.push(count) })
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const handle = (req.url ?? '/').slice(1)
    const owner: StreamOwner = { handle, person: handle, endsAt: Date.now() + 3_600_000, stillLive: async () => Date.now() + 3_600_000, ...owners[handle] }
    if (askFirst && !hub.hasRoom()) {
      res.writeHead(503).end()
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const lastEventId = req.headers['last-event-id']
    hub.open(res, owner, typeof lastEventId === 'string' ? lastEventId : undefined)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  t.teardown(async () => {
    hub.closeAll()
    server.closeAllConnections()
    server.close()
  })

  const open = async (handle: string, lastEventId?: string): Promise<Opened> => {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: `/${handle}`, headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } }, resolve).on('error', reject)
    })
    const events: ServerSentEvent[] = []
    let comments = 0
    const reader = sseReader((event) => events.push(event))
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      comments += chunk.split('\n').filter((line) => line.startsWith(':')).length
      reader.push(chunk)
    })
    const closed = new Promise<void>((resolve) => { response.on('close', resolve) })
    response.on('error', () => {})
    // The channel is open once its first event ('ready') has arrived.
    while (events.length === 0 && response.statusCode === 200) await sleep(5)
    return { events, comments: () => comments, closed, response }
  }
  return { hub, open, drops, counts }
}

const message = (handles: string[], data: Record<string, unknown> = { file_id: 1 }): LiveMessage => ({ id: newMessageId(), event: 'file', handles, data })
const named = (opened: Opened, event: string): ServerSentEvent[] => opened.events.filter((e) => e.event === event)
const settle = async (): Promise<void> => { await sleep(50) }

t.test('a message reaches every channel of the sessions it names, and no other', async (t) => {
  const { hub, open } = await hubServer(t)
  const aliceTab1 = await open('alice')
  const aliceTab2 = await open('alice')
  const bob = await open('bob')
  t.match(aliceTab1.events[0], { event: 'ready', data: '{"heartbeat_ms":60000}', lastEventId: /^[0-9a-z]{9}\.[0-9a-z]{3}\./ }, 'each channel starts with ready, its heartbeat and an id to resume from')
  const sent = message(['alice'], { file_id: 7, status: 'ready' })
  hub.deliver(sent)
  await settle()
  for (const tab of [aliceTab1, aliceTab2]) t.same(named(tab, 'file'), [{ event: 'file', data: '{"file_id":7,"status":"ready"}', lastEventId: sent.id }])
  t.same(named(bob, 'file'), [], 'bob hears nothing of alice\'s file')
  t.equal(hub.size, 3)
})

t.test('one session holds at most maxPerSession channels: a new tab closes its oldest', async (t) => {
  const { hub, open, drops } = await hubServer(t, { maxPerSession: 2 })
  const first = await open('alice')
  await open('alice')
  await open('alice')
  await first.closed
  t.same(named(first, 'closed').map((e) => JSON.parse(e.data)), [{ reason: 'session_limit' }], 'the page is told why, so it does not take a place back at once')
  t.same(drops, ['session_limit'])
  t.equal(hub.size, 2)
})

t.test('one person holds at most maxPerPerson channels, all their sessions together: a new tab closes their oldest', async (t) => {
  const alice = { person: 'alice' }
  const { hub, open, drops } = await hubServer(t, { maxPerSession: 8, maxPerPerson: 3 }, { laptop: alice, phone: alice, tablet: alice })
  const oldest = await open('laptop')
  await open('phone')
  await open('bob')
  await open('tablet')
  t.equal(hub.size, 4, 'three of alice\'s, one of bob\'s')
  await open('phone')
  await oldest.closed
  t.same(named(oldest, 'closed').map((e) => JSON.parse(e.data)), [{ reason: 'person_limit' }], 'the page is told why')
  t.same(drops, ['person_limit'])
  t.equal(hub.size, 4, 'bob kept his')
})

t.test('a message of several files is one file event each, its id on the last', async (t) => {
  const { hub, open } = await hubServer(t)
  const tab = await open('alice')
  const sent: LiveMessage = { id: newMessageId(), event: 'file', handles: ['alice'], data: { event: 'finished', files: [{ file_id: 1 }, { file_id: 2 }, { file_id: 3 }] } }
  hub.deliver(sent)
  await settle()
  t.same(named(tab, 'file').map((e) => JSON.parse(e.data)), [1, 2, 3].map((id) => ({ file_id: id, event: 'finished' })))
  t.same(named(tab, 'file').map((e) => e.lastEventId === sent.id), [false, false, true], 'a page that reconnects resumes after the whole message')
  const back = await open('alice', named(tab, 'ready')[0]?.lastEventId)
  t.equal(named(back, 'file').length, 3, 'and one that missed it gets all of it')
})

t.test('a page that left while its request was being checked is not kept', async (t) => {
  const hub = createStreamHub(defaults)
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // As when the checks before the channel wait on the store: the page goes meanwhile.
    req.socket.once('close', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      t.equal(hub.open(res, { handle: 'alice', person: 'alice', endsAt: Date.now() + 60_000, stillLive: async () => undefined }, undefined), false)
      t.equal(hub.size, 0, 'no place taken')
      server.emit('checked')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { hub.closeAll(); server.close() })
  const checked = once(server, 'checked')
  const arrived = once(server, 'request')
  const request = get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' })
  request.on('error', () => {})
  await arrived
  request.destroy()
  await checked
})

t.test('a channel the instance has no room for once its answer began is ended, its page told why, never left open', async (t) => {
  // As when another channel took the last place while this one's request was being checked.
  const { hub, open, drops } = await hubServer(t, { maxStreams: 1 }, {}, { askFirst: false })
  await open('first')
  const late = await open('late')
  await late.closed
  t.same(late.events.map((event) => [event.event, JSON.parse(event.data)]), [['closed', { reason: 'instance_full' }]], 'told why, and ended')
  t.equal(hub.size, 1, 'nothing kept of it')
  t.same(drops, ['instance_full'], 'and counted')
})

t.test('an instance holds at most maxStreams channels; a closed one frees its place', async (t) => {
  const { hub, open, counts } = await hubServer(t, { maxStreams: 2 })
  const one = await open('a')
  await open('b')
  const refused = await open('c')
  t.equal(refused.response.statusCode, 503, 'the third is refused before its answer starts')
  t.equal(hub.hasRoom(), false)
  one.response.destroy()
  while (hub.size !== 1) await sleep(5)
  t.equal(hub.hasRoom(), true, 'a reader that went away is forgotten')
  t.same(counts, [1, 2, 1], 'the count is reported after each open and close')
})

t.test('a reader that stops reading is dropped once its queue passes the bound, not buffered without end', async (t) => {
  const { hub, open, drops } = await hubServer(t, { maxQueuedBytes: 32 * 1024 })
  const slow = await open('alice')
  const fine = await open('bob')
  slow.response.pause()
  const big = 'x'.repeat(16 * 1024)
  // The socket buffers of both ends (several MiB on loopback) fill before anything queues here;
  // the reader that keeps reading gets every one of the same messages.
  let sent = 0
  while (hub.size === 2 && sent < 5000) {
    hub.deliver(message(['alice', 'bob'], { filler: big }))
    sent++
    await sleep(0)
  }
  // It reads again: what the sockets held comes, then the end.
  slow.response.resume()
  await slow.closed
  t.same(drops, ['slow_reader'])
  t.ok(sent > 10 && sent < 5000, `dropped after ${sent} messages of 16 KiB`)
  t.equal(hub.size, 1, 'the other reader keeps its channel')
  for (let waited = 0; named(fine, 'file').length < sent && waited < 5000; waited += 10) await sleep(10)
  t.equal(named(fine, 'file').length, sent, 'and has read every one of the same messages')
})

t.test('a session that ends (on any instance) closes its channels, saying why', async (t) => {
  const { hub, open, drops } = await hubServer(t)
  const alice = await open('alice')
  const bob = await open('bob')
  hub.deliver({ id: newMessageId(), event: 'session', handles: ['alice'], data: { ended: true, reason: 'ended' } })
  await alice.closed
  t.same(named(alice, 'session').map((e) => JSON.parse(e.data)), [{ ended: true, reason: 'ended' }])
  t.same(drops, ['session_ended'])
  t.equal(hub.size, 1)
  t.equal(bob.response.complete, false, 'bob\'s channel stays open')
})

t.test('heartbeats flow; past the session\'s end it is asked again, and closed when it is over', async (t) => {
  let live = true
  const { hub, open } = await hubServer(t, { heartbeatMs: 40 }, {
    alice: { endsAt: Date.now(), stillLive: async () => live ? Date.now() + 100 : undefined }
  })
  const alice = await open('alice')
  await sleep(200)
  t.ok(alice.comments() >= 2, 'keep-alive comments came')
  t.equal(hub.size, 1, 'still live: the channel stays, with the new end')
  live = false
  await alice.closed
  t.same(named(alice, 'session').map((e) => JSON.parse(e.data)), [{ ended: true, reason: 'expired' }])
})

t.test('a channel whose credential runs out (a device-bound session\'s short-lived cookie) just closes; the session lives on', async (t) => {
  const { hub, open } = await hubServer(t, { heartbeatMs: 40 }, {
    alice: { credentialEndsAt: Date.now() + 100 }
  })
  const alice = await open('alice')
  const bob = await open('bob')
  await alice.closed
  t.same(alice.events.map((e) => e.event), ['ready'], 'no word of the session: the page comes back with a new cookie')
  t.equal(hub.size, 1)
  t.equal(bob.response.complete, false, 'a channel without such a credential stays')
})

t.test('a reconnect with Last-Event-ID gets what it missed; one from too long ago is told to resync', async (t) => {
  const { hub, open } = await hubServer(t)
  const first = await open('alice')
  const seen = message(['alice'], { n: 1 })
  hub.deliver(seen)
  await settle()
  first.response.destroy()
  hub.deliver(message(['alice'], { n: 2 }))
  hub.deliver(message(['bob'], { n: 3 }))
  hub.deliver(message(['alice', 'bob'], { n: 4 }))
  const back = await open('alice', seen.id)
  await settle()
  t.same(named(back, 'file').map((e) => JSON.parse(e.data)), [{ n: 2 }, { n: 4 }], 'only alice\'s, in order')
  const stranger = await open('alice', '00000000.000.unknown')
  await settle()
  t.same(stranger.events.map((e) => e.event), ['ready', 'resync'])
})

t.test('a page that heard only ready resumes from its id; one older than what was let go resyncs', async (t) => {
  const { hub, open } = await hubServer(t, { replayMax: 2 })
  const quiet = await open('alice')
  const readyId = quiet.events[0]?.lastEventId ?? ''
  quiet.response.destroy()
  await sleep(2)
  hub.deliver(message(['alice'], { n: 1 }))
  const back = await open('alice', readyId)
  await settle()
  t.same(named(back, 'file').map((e) => JSON.parse(e.data)), [{ n: 1 }], 'what came after its ready')
  t.notOk(named(back, 'resync').length, 'nothing was let go since')
  back.response.destroy()
  for (let n = 2; n <= 4; n++) hub.deliver(message(['alice'], { n }))
  const late = await open('alice', readyId)
  await settle()
  t.same(late.events.map((e) => e.event), ['ready', 'resync'], 'messages after it were let go: it reads its state again')
})

t.test('closeAll ends every channel and stops the heartbeat', async (t) => {
  const { hub, open } = await hubServer(t, { heartbeatMs: 20 })
  const a = await open('a')
  const b = await open('b')
  hub.closeAll()
  await Promise.all([a.closed, b.closed])
  t.equal(hub.size, 0)
})
