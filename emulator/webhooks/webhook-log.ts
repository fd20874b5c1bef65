// Every delivery attempt the emulator made, so a test can see what a receiver was sent and what
// it answered without a receiver of its own. Bounded like the log of received requests: the
// last 200 attempts, oldest first.
import type { WebhookEvent } from './webhook-events.js'
import type { WebhookSignature } from './webhook-signature.js'

const attemptLimit = 200

/** The JSON body of a delivery, as the service documents it. */
export interface WebhookBody {
  signature: WebhookSignature
  id: string
  event: WebhookEvent
  api_version: string
  data: unknown
}

export interface WebhookAttempt {
  /** The delivery's id (the body's `id`), the same on every attempt of one delivery. */
  id: string
  event: WebhookEvent
  /** The account whose endpoint it went to. */
  user: string
  url: string
  /** 1 for the first attempt, up to 4 after three retries. */
  attempt: number
  /** The endpoint's HTTP status; 0 when there was none (network error, timeout). */
  status: number
  body: WebhookBody
}

export interface WebhookLog {
  record: (attempt: WebhookAttempt) => void
  /** Oldest first; copies, so a caller cannot change the log. */
  list: () => WebhookAttempt[]
}

export function createWebhookLog (): WebhookLog {
  let attempts: WebhookAttempt[] = []
  return {
    record (attempt) {
      attempts.push(structuredClone(attempt))
      if (attempts.length > attemptLimit) attempts = attempts.slice(-attemptLimit)
    },
    list: () => structuredClone(attempts)
  }
}
