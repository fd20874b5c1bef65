// Webhooks are followed up after they were answered (the service waits for none of it), a few at
// a time with a bounded backlog: a burst of webhooks (a bulk upload, say) must not open hundreds
// of calls to the service at once, nor queue without end. A follow-up beyond the backlog is let
// go and reported; the page shows the file's state on its next load anyway.

export interface FollowUpQueueOptions {
  concurrency: number
  maxWaiting: number
}

export function createFollowUpQueue (options: FollowUpQueueOptions) {
  let running = 0
  const waiting: Array<() => Promise<void>> = []
  const idleWaiters: Array<() => void> = []

  const next = (): void => {
    while (running < options.concurrency && waiting.length > 0) {
      const job = waiting.shift() as () => Promise<void>
      running++
      // Jobs report their own failures; one that throws anyway must not stop the queue.
      job().catch(() => {}).finally(() => {
        running--
        next()
      })
    }
    if (running === 0 && waiting.length === 0) for (const resolve of idleWaiters.splice(0)) resolve()
  }

  return {
    /** Queues a job; false (and nothing queued) when the backlog is full. */
    push (job: () => Promise<void>): boolean {
      if (waiting.length >= options.maxWaiting) return false
      waiting.push(job)
      next()
      return true
    },
    /** Lets every waiting job go (closing); resolves to how many there were. */
    clear (): number {
      const dropped = waiting.splice(0).length
      next()
      return dropped
    },
    /** Resolves once nothing runs or waits: on close, and in tests. */
    async idle (): Promise<void> {
      if (running === 0 && waiting.length === 0) return
      await new Promise<void>((resolve) => { idleWaiters.push(resolve) })
    }
  }
}

export type FollowUpQueue = ReturnType<typeof createFollowUpQueue>
