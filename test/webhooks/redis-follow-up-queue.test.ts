// The follow-up queue in a Redis stream (src/webhooks/redis-follow-up-queue.ts), on a real
// redis-server: each follow-up done by one instance and then gone from the stream; bounded; one
// an instance took and never finished (it died) taken over by another; one still running kept by
// the instance running it; one that failed for now tried again; the stream and its group made
// again when Redis lost them.
import t, { type Test } from 'tap'
import { Redis } from 'ioredis'
import { startRedis } from '../helpers/redis.js'
import { createRedisFollowUpQueue } from '../../src/webhooks/redis-follow-up-queue.js'
import type { FollowUp, FollowUpQueue, FollowUpResult } from '../../src/webhooks/follow-up-queue.js'
import { pollUntil } from '../emulator/poll.js'

const redis = await startRedis()
t.teardown(redis.destroy)

const job = (id: string): FollowUp => ({ tenant: 'default', id, event: 'file_transcode', fileId: 7, acceptedAt: Date.now() })
let keys = 0

/** Two instances' queues on one stream, each with its own connection, as two processes have. */
function instances (t: Test, options: { maxWaiting?: number, takeoverAfterMs?: number, forgetConsumersAfterMs?: number } = {}) {
  const key = `follow-ups-${++keys}`
  const make = (): { queue: FollowUpQueue, takenOver: number[] } => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 })
    const takenOver: number[] = []
    const queue = createRedisFollowUpQueue({ client, key, maxWaiting: options.maxWaiting ?? 100, takeoverAfterMs: options.takeoverAfterMs ?? 1_000, blockMs: 200, onTakenOver: (count) => { takenOver.push(count) }, ...(options.forgetConsumersAfterMs === undefined ? {} : { forgetConsumersAfterMs: options.forgetConsumersAfterMs }) })
    t.teardown(async () => {
      await queue.stop(0)
      client.disconnect()
    })
    return { queue, takenOver }
  }
  return { key, a: make(), b: make() }
}

t.test('each follow-up is done once, by one of the instances, and leaves the stream', async (t) => {
  const { key, a, b } = instances(t)
  const done: string[] = []
  const work = async (followUp: FollowUp): Promise<FollowUpResult> => { done.push(followUp.id); return 'done' }
  a.queue.start(work)
  b.queue.start(work)
  for (let i = 0; i < 40; i++) t.equal(await a.queue.add(job(`j${i}`)), true)
  await pollUntil('all done', async () => done.length, (count) => count >= 40)
  t.equal(new Set(done).size, 40, 'each once')
  // The last one is acknowledged just after its work returns, so the stream empties a moment later.
  await pollUntil('acknowledged', async () => (await a.queue.stats()).waiting, (waiting) => waiting === 0)
  t.same(await a.queue.stats(), { waiting: 0, oldestAgeMs: undefined }, 'acknowledged and deleted')
  const raw = new Redis(redis.url)
  t.teardown(() => { raw.disconnect() })
  t.equal(await raw.xlen(key), 0)
})

t.test('bounded: beyond maxWaiting a new one is refused', async (t) => {
  const { a } = instances(t, { maxWaiting: 3 })
  t.same(await Promise.all(['a', 'b', 'c', 'd'].map(async (id) => await a.queue.add(job(id)))), [true, true, true, false])
  const stats = await a.queue.stats()
  t.equal(stats.waiting, 3)
  t.ok((stats.oldestAgeMs ?? -1) >= 0, 'and how old the oldest is')
})

t.test('one an instance took and never finished is taken over by another', async (t) => {
  const { a, b } = instances(t, { takeoverAfterMs: 1_000 })
  let aTook: () => void = () => {}
  const took = new Promise<void>((resolve) => { aTook = resolve })
  // a takes it and never finishes: as a process killed in the middle of it.
  a.queue.start(async () => { aTook(); return await new Promise<FollowUpResult>(() => {}) })
  await a.queue.add(job('orphan'))
  await took
  await a.queue.stop(0)
  const doneByB: string[] = []
  const started = Date.now()
  b.queue.start(async (followUp) => { doneByB.push(followUp.id); return 'done' })
  await pollUntil('taken over', async () => doneByB, (ids) => ids.length > 0, 10_000)
  t.same(doneByB, ['orphan'])
  t.same(b.takenOver, [1], 'counted as a takeover')
  t.comment(`taken over ${Date.now() - started} ms after b started`)
  await pollUntil('gone from the stream', async () => (await b.queue.stats()).waiting, (waiting) => waiting === 0)
})

t.test('one still running is kept by its instance, however long it takes', async (t) => {
  const { a, b } = instances(t, { takeoverAfterMs: 1_000 })
  let finish: (result: FollowUpResult) => void = () => {}
  const runs: string[] = []
  a.queue.start(async (followUp) => { runs.push(`a:${followUp.id}`); return await new Promise<FollowUpResult>((resolve) => { finish = resolve }) })
  await a.queue.add(job('slow'))
  await pollUntil('taken by a', async () => runs.length, (count) => count > 0)
  b.queue.start(async (followUp) => { runs.push(`b:${followUp.id}`); return 'done' })
  // Three takeover periods go by while a still runs it.
  await new Promise((resolve) => setTimeout(resolve, 3_500))
  t.same(runs, ['a:slow'], 'nobody else took it')
  finish('done')
  await pollUntil('done', async () => (await a.queue.stats()).waiting, (waiting) => waiting === 0)
  t.same(b.takenOver, [])
})

t.test('one that failed for now is tried again', async (t) => {
  const { a } = instances(t, { takeoverAfterMs: 1_000 })
  const tries: number[] = []
  a.queue.start(async () => { tries.push(Date.now()); return tries.length < 2 ? 'retry' : 'done' })
  await a.queue.add(job('flaky'))
  await pollUntil('tried twice', async () => tries.length, (count) => count >= 2, 10_000)
  await pollUntil('then done', async () => (await a.queue.stats()).waiting, (waiting) => waiting === 0)
  t.ok((tries[1] ?? 0) - (tries[0] ?? 0) >= 900, 'after it was idle for the takeover time')
})

t.test('the stream and its group are made again when Redis lost them', async (t) => {
  const { key, a } = instances(t)
  const done: string[] = []
  a.queue.start(async (followUp) => { done.push(followUp.id); return 'done' })
  await a.queue.add(job('before'))
  await pollUntil('done', async () => done.length, (count) => count === 1)
  const raw = new Redis(redis.url)
  t.teardown(() => { raw.disconnect() })
  await raw.del(key)
  t.equal(await a.queue.add(job('after')), true)
  await pollUntil('done again', async () => done.length, (count) => count === 2, 10_000)
  t.same(done, ['before', 'after'])
})

t.test('the consumers of instances gone for good leave the group; the living stay', async (t) => {
  const { key, a, b } = instances(t, { forgetConsumersAfterMs: 1_000 })
  const raw = new Redis(redis.url)
  t.teardown(() => { raw.disconnect() })
  const consumers = async (): Promise<number> => (await raw.xinfo('CONSUMERS', key, 'media-bff') as unknown[]).length
  // A consumer is in the group once it has taken something: both take their share.
  const done = async (): Promise<FollowUpResult> => { await new Promise((resolve) => setTimeout(resolve, 50)); return 'done' }
  a.queue.start(done)
  b.queue.start(done)
  for (let i = 0; i < 20; i++) await a.queue.add(job(`before-${i}`))
  await pollUntil('both took some', consumers, (count) => count === 2)
  await pollUntil('all done', async () => (await a.queue.stats()).waiting, (waiting) => waiting === 0)
  // One instance stops for good (killed: nothing of it says goodbye), as restarts and rollouts do.
  await a.queue.stop(0)
  t.equal(await consumers(), 2, 'the stopped one is still in the group for now')
  await pollUntil('the silent consumer removed', consumers, (count) => count === 1, 10_000)
  t.equal(await b.queue.add(job('after')), true)
  await pollUntil('still worked', async () => (await b.queue.stats()).waiting, (waiting) => waiting === 0)
  t.equal(await consumers(), 1, 'the instance still reading keeps its consumer')
})
