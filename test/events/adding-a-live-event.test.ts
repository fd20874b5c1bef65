// What adding a kind of live event takes: an entry in the channel's declaration
// (src/contract/live-events.ts) and the code that raises it. Here the declaration is given one
// more entry (tap's mockImport: the rest as it is) and a message of the new kind is published on
// one instance's bus; on another instance, over Redis, it reaches the page's open channel as an
// event of its own. Without the entry the same message is dropped where it is read, and the page
// hears nothing. The same entry puts it in the OpenAPI description and the browser module's types.
import t, { type Test } from 'tap'
import { createServer, get, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { Type } from 'typebox'
import { LIVE_CHANNEL } from '../../src/contract/live-events.js'
import { CONTRACT } from '../../src/contract/index.js'
import { contractTypes } from '../../src/contract/typescript.js'
import { createRedisEventBus, type EventBus } from '../../src/events/event-bus.js'
import { createStreamHub } from '../../src/events/stream-hub.js'
import { newMessageId, type LiveMessage } from '../../src/events/live-message.js'
import { sseReader, type ServerSentEvent } from '../../public/client/sse.js'
import { startRedis } from '../helpers/redis.js'
import { loadedExtension } from '../helpers/loaded-as.js'

const redis = await startRedis()
t.teardown(() => redis.destroy())

/** The new kind: a notice for the page, `{ text }`, the same on the bus as on the page. */
const Notice = Type.Object({ text: Type.String({ maxLength: 200 }) }, { title: 'LiveNotice', description: 'The data of `notice`' })
const notice = { data: Notice, id: 'sometimes', description: 'A notice for the page', message: Notice } as const

/** One instance: its bus (as given) feeding a hub whose channel for session `h1` is open; the page's events. */
async function instanceWithOpenPage (t: Test, bus: EventBus): Promise<ServerSentEvent[]> {
  const hub = createStreamHub({ maxStreams: 10, maxPerSession: 2, maxPerPerson: 10, maxQueuedBytes: 65_536, heartbeatMs: 60_000, replayWindowMs: 60_000, replayMax: 10, retryMs: 1000 })
  bus.subscribe((message) => { hub.deliver(message) })
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    hub.open(res, { handle: 'h1', person: 'p1', endsAt: Date.now() + 60_000, stillLive: async () => Date.now() + 60_000 }, undefined)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    hub.closeAll()
    server.closeAllConnections()
    server.close()
    await bus.close()
  })
  const events: ServerSentEvent[] = []
  const reader = sseReader((event) => events.push(event))
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, resolve).on('error', reject)
  })
  response.setEncoding('utf8')
  response.on('data', (chunk: string) => { reader.push(chunk) })
  response.on('error', () => {})
  const until = Date.now() + 15_000
  while (events.length === 0) {
    if (Date.now() > until) throw new Error('the page\'s channel sent nothing within 15 s')
    await sleep(5)
  }
  return events
}

function client (t: Test): Redis {
  const connection = new Redis(redis.url)
  t.teardown(() => { connection.disconnect() })
  return connection
}

const aNotice = (): LiveMessage => ({ id: newMessageId(), event: 'notice' as LiveMessage['event'], handles: ['h1'], data: { text: 'Maintenance at noon' } })

/** Waits until `count` connections listen on `channel` (each bus subscribes once connected). */
async function subscribed (t: Test, channel: string, count: number): Promise<void> {
  const asking = client(t)
  const until = Date.now() + 15_000
  for (;;) {
    const [, listening] = await asking.pubsub('NUMSUB', channel) as [string, number]
    if (listening >= count) return
    if (Date.now() > until) throw new Error(`${listening} of ${count} buses subscribed to ${channel} within 15 s`)
    await sleep(10)
  }
}

/** Waits until the page has heard `event`, or `ms` passed; the page's events then. */
async function heard (events: ServerSentEvent[], event: string, ms: number): Promise<ServerSentEvent | undefined> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    const found = events.find((each) => each.event === event)
    if (found !== undefined) return found
    await sleep(10)
  }
  return undefined
}

t.test('with its entry, a new kind travels from one instance to the page on another', async (t) => {
  const channel = `live-${newMessageId()}`
  const { createRedisEventBus: busWithNotice } = await t.mockImport<typeof import('../../src/events/event-bus.js')>(`../../src/events/event-bus${loadedExtension}`, {
    [`../../src/contract/live-events${loadedExtension}`]: { ...await import('../../src/contract/live-events.js'), LIVE_CHANNEL: { ...LIVE_CHANNEL, notice } }
  })
  const page = await instanceWithOpenPage(t, busWithNotice(client(t), channel))
  const raising = busWithNotice(client(t), channel)
  t.teardown(raising.close)
  await subscribed(t, channel, 2)
  await raising.publish(aNotice())
  const event = await heard(page, 'notice', 15_000)
  t.ok(event, 'the page heard the notice')
  t.same(JSON.parse(event?.data ?? '{}'), { text: 'Maintenance at noon' })
})

t.test('without it, the same message is dropped where it is read', async (t) => {
  const channel = `live-${newMessageId()}`
  const page = await instanceWithOpenPage(t, createRedisEventBus(client(t), channel))
  const raising = createRedisEventBus(client(t), channel)
  t.teardown(raising.close)
  await subscribed(t, channel, 2)
  await raising.publish(aNotice())
  // A kind the table knows, sent after it, arrives: so the notice had its chance.
  await raising.publish({ id: newMessageId(), event: 'file', handles: ['h1'], data: { event: 'finished', files: [{ file_id: 1 }] } })
  t.ok(await heard(page, 'file', 15_000), 'the known kind arrives')
  t.equal(page.find((each) => each.event === 'notice'), undefined, 'the unknown one never did')
})

t.test('the same entry describes it: in the OpenAPI description\'s stream, and in the browser module\'s types', async (t) => {
  const { LiveEventStream } = await t.mockImport<typeof import('../../routes/event-schemas.js')>(`../../routes/event-schemas${loadedExtension}`, {
    [`../../src/contract/live-events${loadedExtension}`]: { ...await import('../../src/contract/live-events.js'), LIVE_CHANNEL: { ...LIVE_CHANNEL, notice } }
  })
  const described = (LiveEventStream as unknown as { anyOf: Array<{ title: string, properties: { data: { contentSchema: unknown } } }> }).anyOf.find((event) => event.title === 'notice')
  t.equal(described?.properties.data.contentSchema, Notice, 'an event of the stream, its data the declared schema')
  const types = contractTypes({ ...CONTRACT, LiveNotice: Notice }, { ...LIVE_CHANNEL, notice })
  t.match(types, /^export interface LiveNotice \{\n {2}text: string\n\}$/m, 'its data, a type of the module')
  t.match(types, /^ {2}notice: LiveNotice$/m, 'named in LiveEventData')
})
