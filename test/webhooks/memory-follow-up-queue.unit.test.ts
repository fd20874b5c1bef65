// The follow-up queue in memory (src/webhooks/memory-follow-up-queue.ts): bounded (a full queue
// refuses, so the webhook is answered 503 and retried by the service), a few at a time, a failed
// follow-up tried again until it is too old, and a stopping queue refusing new ones while it runs
// what it holds, within its grace.
import t from 'tap'
import { createMemoryFollowUpQueue } from '../../src/webhooks/memory-follow-up-queue.js'
import { FOLLOW_UP_MAX_AGE_MS, type FollowUp, type FollowUpResult } from '../../src/webhooks/follow-up-queue.js'

const job = (id: string, acceptedAt = Date.now()): FollowUp => ({ tenant: 'default', id, event: 'file_transcode', fileId: 1, acceptedAt })

/** A worker whose follow-ups finish when the test says so. */
function heldWorker () {
  const running = new Map<string, (result: FollowUpResult) => void>()
  const done: string[] = []
  return {
    running,
    done,
    work: async (followUp: FollowUp): Promise<FollowUpResult> => await new Promise((resolve) => {
      running.set(followUp.id, (result) => {
        running.delete(followUp.id)
        done.push(followUp.id)
        resolve(result)
      })
    }),
    finish: (id: string, result: FollowUpResult = 'done') => { running.get(id)?.(result) }
  }
}

const settle = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

t.test('a few at a time; beyond maxWaiting a new one is refused, never one already taken', async (t) => {
  const worker = heldWorker()
  const queue = createMemoryFollowUpQueue({ maxWaiting: 3, concurrency: 2 })
  queue.start(worker.work)
  const added = []
  for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) added.push(await queue.add(job(id)))
  t.same(added, [true, true, true, true, true, false], 'two running, three waiting, the sixth refused')
  t.same([...worker.running.keys()], ['a', 'b'])
  t.equal((await queue.stats()).waiting, 5)
  worker.finish('a')
  await settle()
  t.same([...worker.running.keys()], ['b', 'c'], 'the next one starts as one finishes')
  t.equal(await queue.add(job('f')), true, 'and there is room again')
})

t.test('a follow-up that failed for now is tried again, and given up once too old', async (t) => {
  let now = Date.now()
  const givenUp: string[] = []
  const tries: string[] = []
  const queue = createMemoryFollowUpQueue({ maxWaiting: 10, retryAfterMs: 10, now: () => now, onGivenUp: (followUp) => { givenUp.push(followUp.id) } })
  queue.start(async (followUp) => {
    tries.push(followUp.id)
    return tries.length < 3 ? 'retry' : 'done'
  })
  await queue.add(job('flaky', now))
  while ((await queue.stats()).waiting > 0) await new Promise((resolve) => setTimeout(resolve, 5))
  t.same(tries, ['flaky', 'flaky', 'flaky'], 'tried until it worked')
  t.same(givenUp, [])

  const old = createMemoryFollowUpQueue({ maxWaiting: 10, retryAfterMs: 10, now: () => now, onGivenUp: (followUp) => { givenUp.push(followUp.id) } })
  old.start(async () => 'retry')
  await old.add(job('hopeless', now))
  now += FOLLOW_UP_MAX_AGE_MS
  while ((await old.stats()).waiting > 0) await new Promise((resolve) => setTimeout(resolve, 5))
  t.same(givenUp, ['hopeless'], 'given up, and reported')
})

t.test('stopping: no new ones; what is held runs within the grace, the rest is reported', async (t) => {
  const worker = heldWorker()
  const givenUp: string[] = []
  const queue = createMemoryFollowUpQueue({ maxWaiting: 10, concurrency: 1, onGivenUp: (followUp) => { givenUp.push(followUp.id) } })
  queue.start(worker.work)
  for (const id of ['a', 'b', 'c']) await queue.add(job(id))
  const stopped = queue.stop(200)
  t.equal(await queue.add(job('late')), false, 'a stopping queue takes nothing more')
  worker.finish('a')
  await settle()
  t.same([...worker.running.keys()], ['b'], 'what waited still runs')
  worker.finish('b')
  const left = await stopped
  t.equal(left, 1, 'c waited, and was still running when the grace was over')
  t.same(givenUp, [])
  t.same(worker.done, ['a', 'b'])
})

t.test('stats: how many, and how old the oldest', async (t) => {
  let now = 1_000_000
  const queue = createMemoryFollowUpQueue({ maxWaiting: 10, now: () => now })
  t.same(await queue.stats(), { waiting: 0, oldestAgeMs: undefined })
  await queue.add(job('a', now))
  now += 5_000
  await queue.add(job('b', now))
  t.same(await queue.stats(), { waiting: 2, oldestAgeMs: 5_000 }, 'nothing works it yet: both wait')
})
