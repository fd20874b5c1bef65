// Accepted webhooks wait here for their follow-up (webhook-hints.ts). The service retries a
// webhook only while media-bff answers it with an error, so a webhook answered 2xx is
// media-bff's to follow up: it is queued first, and refused (503, the service retries) when it
// cannot be. This is the queue's contract; memory-follow-up-queue.ts keeps it in this process
// (one instance: a full queue or a stopping instance refuses), redis-follow-up-queue.ts in a Redis
// stream that every instance works, where a follow-up one instance took and never finished
// (it crashed) is taken over by another.
import { WEBHOOK_EVENTS, type WebhookEvent } from './read-webhook.js'
import { isRequestId } from '../request-id.js'

/** What a follow-up needs, and nothing of the webhook's unsigned body but a file id to look up. */
export interface FollowUp {
  tenant: string
  /** The webhook's id (the same across the service's retries). */
  id: string
  event: WebhookEvent
  fileId: number | undefined
  /** When media-bff accepted it (epoch ms). */
  acceptedAt: number
  /** The id of the request that brought it (src/request-id.ts): its calls to the service carry it too. */
  requestId?: string
  /** Its intake's span, as a W3C traceparent, when tracing is on: the follow-up joins that trace. */
  traceparent?: string
}

/** `done`: finished (whatever it found); `retry`: it failed for now (the service or the store away). */
export type FollowUpResult = 'done' | 'retry'

export interface FollowUpQueueEvents {
  /** A follow-up given up: older than the queue keeps any (it kept failing). */
  onGivenUp?: (job: FollowUp) => void
  /** Follow-ups another instance took and never finished, taken over here. */
  onTakenOver?: (count: number) => void
}

export interface FollowUpQueue {
  /** Queues the follow-up for good; false when there is no room for it (or the queue is stopping). */
  add: (job: FollowUp) => Promise<boolean>
  /** Works the queue: `work` for each follow-up, a few at a time, until stop. */
  start: (work: (job: FollowUp) => Promise<FollowUpResult>) => void
  /**
   * Takes no more, and waits up to graceMs for the follow-ups under way (and, in memory, those
   * still waiting) to finish; resolves to how many were left (in Redis, for another instance).
   */
  stop: (graceMs: number) => Promise<number>
  /** Follow-ups waiting or under way, and the age of the oldest (for the metrics). */
  stats: () => Promise<{ waiting: number, oldestAgeMs: number | undefined }>
}

/** How many follow-ups run at once per instance: a burst must not open hundreds of calls to the service. */
export const FOLLOW_UP_CONCURRENCY = 8
/** A follow-up that keeps failing is given up this long after it was accepted. */
export const FOLLOW_UP_MAX_AGE_MS = 15 * 60_000

/** A follow-up as it was queued, checked: what comes back from a store is input too. */
export function readFollowUp (text: string): FollowUp | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object') return undefined
  const { tenant, id, event, fileId, acceptedAt, requestId, traceparent } = value as Record<string, unknown>
  if (typeof tenant !== 'string' || typeof id !== 'string' || typeof acceptedAt !== 'number') return undefined
  if (typeof event !== 'string' || !(WEBHOOK_EVENTS as readonly string[]).includes(event)) return undefined
  if (fileId !== undefined && !(typeof fileId === 'number' && Number.isSafeInteger(fileId) && fileId >= 0)) return undefined
  // Only an id or a trace of the shape they are written in is carried on; anything else is left.
  return {
    tenant,
    id,
    event: event as WebhookEvent,
    fileId: fileId as number | undefined,
    acceptedAt,
    ...(typeof requestId === 'string' && isRequestId(requestId) ? { requestId } : {}),
    ...(typeof traceparent === 'string' && TRACEPARENT.test(traceparent) ? { traceparent } : {})
  }
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/
