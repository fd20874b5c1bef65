// The event bus between instances (src/events/event-bus.ts): in one process, and over a real
// Redis between two clients as two instances have them. Every subscriber hears every message,
// its own included; what arrives on the channel is read as untrusted input (a message of an
// unknown kind, or a kind's data in the wrong shape, is dropped); a subscriber that lost Redis
// subscribes again once it is back.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { createMemoryEventBus, createRedisEventBus } from '../../src/events/event-bus.js'
import { newMessageId, readLiveMessage, type LiveMessage } from '../../src/events/live-message.js'
import { startRedis } from '../helpers/redis.js'
import { pollUntil } from '../emulator/poll.js'

const ended = (handle: string): LiveMessage => ({ id: newMessageId(), event: 'session', handles: [handle], data: { ended: true, reason: 'signed_out' } })

t.test('in one process: every subscriber hears every message, until it unsubscribes', async (t) => {
  const bus = createMemoryEventBus()
  const first: LiveMessage[] = []
  const second: LiveMessage[] = []
  const stopFirst = bus.subscribe((message) => first.push(message))
  bus.subscribe((message) => second.push(message))
  await bus.publish(ended('a'))
  await pollUntil('heard', () => second.length, (count) => count === 1)
  t.equal(first.length, 1)
  stopFirst()
  await bus.publish(ended('b'))
  await pollUntil('heard again', () => second.length, (count) => count === 2)
  t.equal(first.length, 1, 'not after unsubscribing')
})

t.test('over Redis: one instance\'s message reaches the other, and its own subscribers', async (t) => {
  const redis = await startRedis()
  t.teardown(redis.destroy)
  const clients = [new Redis(redis.url), new Redis(redis.url)]
  t.teardown(() => { for (const client of clients) client.disconnect() })
  const [a, b] = clients.map((client) => createRedisEventBus(client, 'test:live-events'))
  if (a === undefined || b === undefined) throw new Error('no bus')
  t.teardown(async () => { await a.close(); await b.close() })
  const heardByA: LiveMessage[] = []
  const heardByB: LiveMessage[] = []
  a.subscribe((message) => heardByA.push(message))
  b.subscribe((message) => heardByB.push(message))
  // Subscribing happens once each subscriber connection is ready.
  await pollUntil('both subscribed', async () => Number((await clients[0]?.pubsub('NUMSUB', 'test:live-events'))?.[1]), (count) => count === 2)
  const sent = ended('session-of-alice')
  await a.publish(sent)
  await pollUntil('heard by both', () => [heardByA.length, heardByB.length], ([x, y]) => x === 1 && y === 1)
  t.same(heardByB[0], sent, 'as it was sent')

  // What else arrives on the channel is dropped: anyone who can publish there is not trusted.
  const raw = clients[0] as Redis
  for (const text of ['not json', JSON.stringify({ ...sent, event: 'shutdown' }), JSON.stringify({ ...sent, event: 'file', data: { files: 'x' } }), JSON.stringify({ ...sent, handles: 'all' })]) {
    await raw.publish('test:live-events', text)
  }
  await b.publish(ended('session-of-bob'))
  await pollUntil('the good one heard', () => heardByA.length, (count) => count === 2)
  t.same(heardByA.map((message) => message.handles[0]), ['session-of-alice', 'session-of-bob'], 'nothing else was taken')

  await redis.stop()
  await sleep(300)
  await redis.start()
  await pollUntil('subscribed again', async () => Number((await raw.pubsub('NUMSUB', 'test:live-events').catch(() => [0, 0]))[1]), (count) => count === 2, 15_000)
  // The publishing connection may still be reconnecting: publish until one is taken.
  await pollUntil('published after the restart', async () => await a.publish(ended('after-restart')).then(() => true, () => false), (taken) => taken, 15_000)
  await pollUntil('heard after the restart', () => heardByB.length, (count) => count >= 3)
  t.equal(heardByB.at(-1)?.handles[0], 'after-restart')
})

t.test('readLiveMessage: each kind\'s data must be its shape', async (t) => {
  const id = newMessageId()
  const read = (value: unknown): LiveMessage | undefined => readLiveMessage(JSON.stringify(value))
  t.ok(read({ id, event: 'file', handles: ['h'], data: { event: 'finished', files: [{ file_id: 1 }] } }))
  t.notOk(read({ id, event: 'file', handles: ['h'], data: { event: 'finished', files: Array.from({ length: 101 }, () => ({})) } }), 'at most 100 files')
  t.notOk(read({ id, event: 'file', handles: ['h'], data: { files: [] } }), 'file without its event')
  t.ok(read({ id, event: 'session', handles: ['h'], data: { ended: true, reason: 'expired' } }))
  t.notOk(read({ id, event: 'session', handles: ['h'], data: { reason: 'expired' } }), 'session without ended')
  t.notOk(read({ id, event: 'toString', handles: ['h'], data: {} }), 'an inherited name is no kind')
  t.notOk(read({ id: 'x'.repeat(65), event: 'session', handles: ['h'], data: { ended: true, reason: 'expired' } }), 'an id too long')
})
