// "One refresh per grant at a time", across processes: a lock record in the shared store whose
// value is a random owner token and whose TTL is a lease. Only the owner can renew or release it
// (both compare the token atomically), and a crashed owner's lock frees itself when the lease
// runs out. While the owner works, a timer renews the lease, so a refresh slower than one lease
// keeps the lock instead of letting a second refresh start beside it.
//
// With the memory store the same code gives mutual exclusion within the process.
import { randomBytes } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'

export interface LeaseLockOptions {
  /** The lock's TTL; a holder that stops renewing loses it this long after the last renewal. */
  leaseMs?: number
  /** How often the holder renews; must be shorter than leaseMs. Default leaseMs / 3. */
  renewEveryMs?: number
  /** How long to wait for a lock someone else holds. 0: try once. */
  waitMs?: number
  /** Pause between attempts while waiting (plus up to half of it again, as jitter). */
  pollMs?: number
  /** Called with the milliseconds spent waiting, once per acquisition that had to wait (acquired or not). */
  onWait?: (waitedMs: number) => void
}

export type LeaseLock =
  | {
    acquired: true
    /** Aborted when the lease was lost while held (a renewal found another owner or none). */
    signal: AbortSignal
    /**
     * Asks the store, now, whether the lock is still ours, renewing the lease when it is. The
     * signal alone can be stale: a process that was frozen resumes before its renewal timer runs.
     */
    confirm: () => Promise<boolean>
    /** Stops renewing and deletes the lock if it is still ours. Never rejects. */
    release: () => Promise<void>
  }
  | { acquired: false }

/** Waiting for the lock took longer than waitMs. */
export class LockTimeoutError extends Error {
  constructor (readonly waitedMs: number) {
    super(`lock still held by another owner after waiting ${Math.round(waitedMs)} ms`)
    this.name = 'LockTimeoutError'
  }
}

export async function acquireLeaseLock (store: KeyValueStore, key: string, options: LeaseLockOptions = {}): Promise<LeaseLock> {
  const { leaseMs = 2000, waitMs = 15_000, pollMs = 25, onWait } = options
  const renewEveryMs = options.renewEveryMs ?? leaseMs / 3
  if (!(leaseMs > 0)) throw new RangeError('leaseMs must be positive')
  if (!(renewEveryMs > 0 && renewEveryMs < leaseMs)) throw new RangeError('renewEveryMs must be positive and shorter than leaseMs')
  if (!(waitMs >= 0) || !(pollMs > 0)) throw new RangeError('waitMs must be >= 0 and pollMs positive')

  const owner = randomBytes(16).toString('base64url')
  const started = performance.now()
  let waited = false
  while (true) {
    if (await store.setIfAbsent(key, owner, leaseMs)) {
      if (waited) onWait?.(performance.now() - started)
      return holdLease(store, key, owner, leaseMs, renewEveryMs)
    }
    const remainingMs = waitMs - (performance.now() - started)
    if (remainingMs <= 0) {
      if (waited) onWait?.(performance.now() - started)
      return { acquired: false }
    }
    waited = true
    // Jitter, so waiters that woke together do not all hit the store in the same instant.
    await sleep(Math.min(remainingMs, pollMs * (1 + Math.random() / 2)))
  }
}

export type HeldLease = Pick<Extract<LeaseLock, { acquired: true }>, 'signal' | 'confirm'>

/** Runs fn while holding the lock; waits for it up to waitMs, else throws LockTimeoutError. */
export async function withLeaseLock<T> (
  store: KeyValueStore,
  key: string,
  fn: (lease: HeldLease) => Promise<T>,
  options: LeaseLockOptions = {}
): Promise<T> {
  const started = performance.now()
  const lock = await acquireLeaseLock(store, key, options)
  if (!lock.acquired) throw new LockTimeoutError(performance.now() - started)
  try {
    return await fn(lock)
  } finally {
    await lock.release()
  }
}

function holdLease (store: KeyValueStore, key: string, owner: string, leaseMs: number, renewEveryMs: number): LeaseLock {
  const lost = new AbortController()
  let released = false
  let lastRenewedAt = performance.now()
  let timer: ReturnType<typeof setTimeout> | undefined

  const renew = (): void => {
    store.expireIfEquals(key, owner, leaseMs).then((stillOurs) => {
      if (released) return
      if (!stillOurs) {
        lost.abort(new Error('lease lost: the lock expired or was taken over'))
        return
      }
      lastRenewedAt = performance.now()
      scheduleRenewal()
    }, (error: unknown) => {
      if (released) return
      // The store may be back before the lease runs out; only then is the lock really lost.
      if (performance.now() - lastRenewedAt >= leaseMs) {
        lost.abort(new Error('lease lost: could not renew it before it expired', { cause: error }))
        return
      }
      scheduleRenewal()
    })
  }
  const scheduleRenewal = (): void => {
    if (released) return
    // A chain of timeouts, not an interval: a slow renewal never overlaps the next one.
    timer = setTimeout(renew, renewEveryMs)
    // The lock must not keep the process alive; whoever holds it has work of its own that does.
    timer.unref()
  }
  scheduleRenewal()

  return {
    acquired: true,
    signal: lost.signal,
    confirm: async () => {
      if (lost.signal.aborted || released) return false
      let stillOurs = false
      try {
        stillOurs = await store.expireIfEquals(key, owner, leaseMs)
      } catch {
        // The store cannot say: treat the lease as lost rather than act without it.
      }
      if (stillOurs) lastRenewedAt = performance.now()
      else lost.abort(new Error('lease lost: the lock expired or was taken over'))
      return stillOurs
    },
    release: async () => {
      if (released) return
      released = true
      clearTimeout(timer)
      try {
        await store.deleteIfEquals(key, owner)
      } catch {
        // Unreachable store: the lease expires on its own within leaseMs.
      }
    }
  }
}

async function sleep (ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}
