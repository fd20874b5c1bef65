import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { acquireLeaseLock, LockTimeoutError, withLeaseLock } from '../../src/grants/lease-lock.js'
import { StoreUnavailableError } from '../../src/store/key-value-store.js'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { startRedis } from '../helpers/redis.js'
import { BUSY_MACHINE_SLACK_MS } from '../helpers/timing.js'

const redis = await startRedis()
t.teardown(() => redis.destroy())
// Two store instances on one Redis stand for two media-bff processes.
const processA = createRedisStore({ url: redis.url })
const processB = createRedisStore({ url: redis.url })
t.teardown(() => Promise.all([processA.close(), processB.close()]))

let lockNumber = 0
const lockKey = (): string => `lock:test:${++lockNumber}`

t.test('mutual exclusion across two processes', async (t) => {
  const key = lockKey()
  let inside = 0
  let mostInside = 0
  let runs = 0
  const critical = async (): Promise<void> => {
    inside++
    mostInside = Math.max(mostInside, inside)
    await sleep(15)
    runs++
    inside--
  }
  await Promise.all(Array.from({ length: 16 }, (_, i) =>
    withLeaseLock(i % 2 === 0 ? processA : processB, key, critical, { pollMs: 5 })))
  t.equal(runs, 16, 'every caller ran')
  t.equal(mostInside, 1, 'never two at once')
  t.equal(await processA.get(key), undefined, 'the lock is gone afterwards')
})

// Leases in these tests are long enough that a machine busy with other suites (event-loop stalls of
// half a second were seen) does not make a holder miss every renewal of one lease: it would then
// lose the lock for real, as it should.
t.test('renewal keeps the lock while the work takes 3x the lease', async (t) => {
  const key = lockKey()
  const leaseMs = 1500
  const lock = await acquireLeaseLock(processA, key, { leaseMs })
  if (!lock.acquired) throw new Error('not acquired')
  const started = Date.now()
  let attempts = 0
  while (Date.now() - started < 3 * leaseMs) {
    const rival = await acquireLeaseLock(processB, key, { leaseMs, waitMs: 0 })
    t.equal(rival.acquired, false, `still held after ${Date.now() - started} ms`)
    attempts++
    await sleep(leaseMs / 5)
  }
  // A loaded machine may manage few checks; what matters is that none of them got the lock.
  t.ok(attempts >= 2, `${attempts} checks over ${3 * leaseMs} ms`)
  t.equal(lock.signal.aborted, false, 'the holder was never told it lost the lock')
  await lock.release()
  const after = await acquireLeaseLock(processB, key, { leaseMs, waitMs: 0 })
  t.equal(after.acquired, true, 'free at once after release')
  if (after.acquired) await after.release()
})

t.test('withLeaseLock over a slow fn: a waiter gets in only after fn finished', async (t) => {
  const key = lockKey()
  const leaseMs = 1000
  const events: string[] = []
  const slow = withLeaseLock(processA, key, async () => {
    events.push('slow:start')
    await sleep(3 * leaseMs)
    events.push('slow:end')
    return 'slow result'
  }, { leaseMs })
  await sleep(20)
  const waiter = withLeaseLock(processB, key, async () => { events.push('waiter') }, { leaseMs })
  t.equal(await slow, 'slow result', 'fn result is passed through')
  await waiter
  t.same(events, ['slow:start', 'slow:end', 'waiter'])
})

t.test('release by anyone but the owner is impossible', async (t) => {
  const key = lockKey()
  const owner = await acquireLeaseLock(processA, key, { leaseMs: 5000 })
  if (!owner.acquired) throw new Error('not acquired')
  const token = await processA.get(key)
  t.equal(await processB.deleteIfEquals(key, 'somebody-else'), false, 'a wrong token deletes nothing')
  const rival = await acquireLeaseLock(processB, key, { waitMs: 0 })
  t.same(rival, { acquired: false }, 'a non-owner gets no release at all')
  t.equal(await processA.get(key), token, 'the lock is untouched')
  await owner.release()
  t.equal(await processA.get(key), undefined)
})

t.test('an owner whose lease was lost does not release the next owner\'s lock', async (t) => {
  const key = lockKey()
  const stale = await acquireLeaseLock(processA, key, { leaseMs: 300, renewEveryMs: 100 })
  if (!stale.acquired) throw new Error('not acquired')
  // Simulates the lease running out (a stalled process): the lock record vanishes.
  await processA.delete(key)
  const next = await acquireLeaseLock(processB, key, { waitMs: 0 })
  if (!next.acquired) throw new Error('next owner did not get the free lock')
  const nextToken = await processB.get(key)
  const told = once(stale.signal, 'abort').then(() => true)
  t.equal(await Promise.race([told, sleep(5000, false, { ref: false })]), true, 'the stale owner learns it lost the lock at its next renewal')
  await stale.release()
  t.equal(await processB.get(key), nextToken, 'its release left the new owner\'s lock alone')
  await next.release()
})

t.test('a crashed owner\'s lock frees itself after one lease', async (t) => {
  const key = lockKey()
  const crashing = createRedisStore({ url: redis.url })
  const lock = await acquireLeaseLock(crashing, key, { leaseMs: 300 })
  t.equal(lock.acquired, true)
  await crashing.close() // renewals now fail, as if the process died
  const started = Date.now()
  // Without the lease running out, the wait would end in LockTimeoutError.
  await withLeaseLock(processB, key, async () => {}, { leaseMs: 300, waitMs: 5000 })
  t.pass(`the next owner got it once the lease ran out (${Date.now() - started} ms)`)
})

t.test('waiters time out with LockTimeoutError; onWait reports the wait', async (t) => {
  const key = lockKey()
  const holder = await acquireLeaseLock(processA, key, { leaseMs: 5000 })
  if (!holder.acquired) throw new Error('not acquired')
  const waits: number[] = []
  let ran = false
  const started = Date.now()
  await t.rejects(withLeaseLock(processB, key, async () => { ran = true }, { waitMs: 200, onWait: (ms) => waits.push(ms) }), LockTimeoutError)
  const elapsed = Date.now() - started
  t.ok(elapsed >= 200 && elapsed < 200 + BUSY_MACHINE_SLACK_MS, `gave up after waitMs (${elapsed} ms)`)
  t.equal(ran, false, 'fn did not run')
  t.equal(waits.length, 1)
  t.ok((waits[0] ?? 0) >= 200, 'onWait got the time spent waiting')

  const immediate = await acquireLeaseLock(processB, key, { waitMs: 0, onWait: (ms) => waits.push(ms) })
  t.equal(immediate.acquired, false)
  t.equal(waits.length, 1, 'a single attempt is not a wait')

  setTimeout(() => { holder.release().catch(() => {}) }, 100)
  await withLeaseLock(processB, key, async () => {}, { onWait: (ms) => waits.push(ms) })
  t.equal(waits.length, 2, 'a wait that ends in the lock is reported too')
  t.ok((waits[1] ?? 0) >= 90 && (waits[1] ?? 0) < 100 + BUSY_MACHINE_SLACK_MS, `about as long as the holder kept it (${Math.round(waits[1] ?? 0)} ms)`)

  await withLeaseLock(processB, key, async () => {}, { onWait: (ms) => waits.push(ms) })
  t.equal(waits.length, 2, 'no report when the lock was free')
})

t.test('the lock is released when fn throws', async (t) => {
  const key = lockKey()
  await t.rejects(withLeaseLock(processA, key, async () => { throw new Error('refresh failed') }), /refresh failed/)
  t.equal(await processA.get(key), undefined)
})

t.test('an unreachable store surfaces as StoreUnavailableError, not as a timeout', async (t) => {
  const closed = createMemoryStore()
  await closed.close()
  await t.rejects(withLeaseLock(closed, lockKey(), async () => {}), StoreUnavailableError)
})

t.test('works in one process on the memory store', async (t) => {
  const memory = createMemoryStore()
  t.teardown(() => memory.close())
  const key = lockKey()
  let inside = 0
  let mostInside = 0
  await Promise.all(Array.from({ length: 10 }, () => withLeaseLock(memory, key, async () => {
    inside++
    mostInside = Math.max(mostInside, inside)
    await sleep(5)
    inside--
  }, { pollMs: 2 })))
  t.equal(mostInside, 1)
})

t.test('options are checked', async (t) => {
  const memory = createMemoryStore()
  t.teardown(() => memory.close())
  await t.rejects(acquireLeaseLock(memory, 'k', { leaseMs: 0 }), RangeError)
  await t.rejects(acquireLeaseLock(memory, 'k', { leaseMs: 100, renewEveryMs: 100 }), RangeError)
  await t.rejects(acquireLeaseLock(memory, 'k', { waitMs: -1 }), RangeError)
  await t.rejects(acquireLeaseLock(memory, 'k', { pollMs: 0 }), RangeError)
})
