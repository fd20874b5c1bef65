// The follow-up queue in this process (no Redis: one instance). Bounded: when it holds maxWaiting
// follow-ups, or once the instance is stopping, a new webhook is refused (the service retries it,
// from the instance that replaces this one). A follow-up that failed for now is tried again after
// retryAfterMs, until it is FOLLOW_UP_MAX_AGE_MS old. What is still queued when the process dies
// is lost with it, as the sessions in its memory are: scale out over Redis to keep both.
import { FOLLOW_UP_CONCURRENCY, FOLLOW_UP_MAX_AGE_MS, type FollowUp, type FollowUpQueue, type FollowUpQueueEvents, type FollowUpResult } from './follow-up-queue.js'

export interface MemoryFollowUpQueueOptions extends FollowUpQueueEvents {
  maxWaiting: number
  concurrency?: number
  retryAfterMs?: number
  now?: () => number
}

export function createMemoryFollowUpQueue (options: MemoryFollowUpQueueOptions): FollowUpQueue & { readonly size: number } {
  const { maxWaiting, concurrency = FOLLOW_UP_CONCURRENCY, retryAfterMs = 20_000, now = Date.now } = options
  const waiting: FollowUp[] = []
  const retrying = new Map<FollowUp, NodeJS.Timeout>()
  let running = 0
  let stopping = false
  let work: ((job: FollowUp) => Promise<FollowUpResult>) | undefined
  let settled: (() => void) | undefined

  const held = (): number => waiting.length + retrying.size + running

  const pump = (): void => {
    const worker = work
    if (worker === undefined) return
    while (running < concurrency && waiting.length > 0) {
      const job = waiting.shift() as FollowUp
      running++
      run(worker, job).finally(() => {
        running--
        pump()
      })
    }
    if (held() === 0) settled?.()
  }

  const run = async (worker: (job: FollowUp) => Promise<FollowUpResult>, job: FollowUp): Promise<void> => {
    const result = await worker(job).catch((): FollowUpResult => 'retry')
    if (result === 'done') return
    if (now() - job.acceptedAt >= FOLLOW_UP_MAX_AGE_MS || stopping) {
      options.onGivenUp?.(job)
      return
    }
    const timer = setTimeout(() => {
      retrying.delete(job)
      waiting.push(job)
      pump()
    }, retryAfterMs)
    timer.unref()
    retrying.set(job, timer)
  }

  return {
    get size () { return held() },
    async add (job) {
      // Follow-ups being retried hold their place: an accepted webhook is never pushed out.
      if (stopping || waiting.length + retrying.size >= maxWaiting) return false
      waiting.push(job)
      pump()
      return true
    },
    start (worker) {
      work = worker
      pump()
    },
    async stop (graceMs) {
      stopping = true
      // What waits for a retry would only fail again before the process ends.
      for (const [job, timer] of retrying) {
        clearTimeout(timer)
        options.onGivenUp?.(job)
      }
      retrying.clear()
      if (held() > 0) {
        let timer: NodeJS.Timeout | undefined
        await Promise.race([
          new Promise<void>((resolve) => { settled = resolve }),
          new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs) })
        ])
        clearTimeout(timer)
      }
      const left = waiting.splice(0)
      for (const job of left) options.onGivenUp?.(job)
      return left.length + running
    },
    async stats () {
      const oldest = [...waiting, ...retrying.keys()].reduce<number | undefined>((min, job) => Math.min(min ?? job.acceptedAt, job.acceptedAt), undefined)
      return { waiting: held(), oldestAgeMs: oldest === undefined ? undefined : now() - oldest }
    }
  }
}
