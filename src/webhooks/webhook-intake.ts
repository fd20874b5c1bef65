// Receiving one webhook: read, verify, refuse replays, and tell a first delivery from a retry,
// before anything else is done. Nothing is written to the store for a webhook that is not signed
// with the tenant's key and fresh, so only the service itself can make it write.
// The signature covers the timestamp and token only, so anyone who saw one delivery could send
// its signature with another body until the timestamp is stale. Each token is therefore bound to
// the first id it came with:
//   - the token with another id: a forged body on a captured signature, refused;
//   - the same token and id again, or the same id with a fresh token: the service retrying (or
//     the very delivery resent), 2xx and nothing done twice.
// A webhook is answered 2xx only once its follow-up is queued for good (follow-up-queue.ts), and
// its id is marked taken only after that: a webhook that could not be queued is refused (503),
// and the service's retry of it is then a first delivery, not a duplicate. Two deliveries of one
// id racing each other may both be queued; following one up twice tells the pages nothing new
// (webhook-hints.ts tells each state of a file once).
import { createHash } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'
import { readWebhook, type WebhookHint } from './read-webhook.js'
import { MAX_SKEW_S, verifySignature } from './webhook-signature.js'
import { ATTR, inSpan } from '../tracing/spans.js'

export type IntakeOutcome = 'accepted' | 'duplicate' | 'queue_full' | 'refused_body' | 'refused_signature' | 'refused_stale' | 'refused_replay'

export interface IntakeResult {
  outcome: IntakeOutcome
  /** Why it was refused, for the log line (never the body or the signature). */
  reason?: string
  /** Set when accepted (or a duplicate): what it was about. */
  hint?: WebhookHint
}

/** Queues the webhook's follow-up for good; false when there is no room for it. */
export type Enqueue = (hint: WebhookHint) => Promise<boolean>

/** Ids are remembered this long: the service's retries of one event come within minutes. */
const ID_MEMORY_MS = 24 * 3_600_000
/** A token outlives the window in which its timestamp is accepted. */
const TOKEN_MEMORY_MS = 2 * MAX_SKEW_S * 1000 + 60_000

export function createWebhookIntake (store: KeyValueStore) {
  const digest = (value: string): string => createHash('sha256').update(value).digest('base64url')
  const receive = async (tenant: string, keys: readonly string[], body: unknown, enqueue: Enqueue, now: number): Promise<IntakeResult> => {
    const reading = readWebhook(body)
    if (!reading.ok) return { outcome: 'refused_body', reason: reading.reason }
    const { hint } = reading
    const verdict = verifySignature(hint.signature, keys, now)
    if (verdict === 'bad_signature') return { outcome: 'refused_signature', reason: 'the signature is not the tenant key\'s' }
    if (verdict === 'stale') return { outcome: 'refused_stale', reason: `the timestamp is more than ${MAX_SKEW_S} s from now` }
    const tokenKey = `webhook-token:${tenant}:${digest(hint.signature.token)}`
    if (!await store.setIfAbsent(tokenKey, hint.id, TOKEN_MEMORY_MS) && await store.get(tokenKey) !== hint.id) {
      return { outcome: 'refused_replay', reason: 'its signature\'s token came before with another id' }
    }
    const idKey = `webhook-id:${tenant}:${hint.id}`
    if (await store.get(idKey) !== undefined) return { outcome: 'duplicate', hint }
    if (!await enqueue(hint)) return { outcome: 'queue_full', reason: 'the follow-up queue is full', hint }
    // Marked only now, so that a delivery refused or failed half-way is taken when retried.
    await store.set(idKey, '1', ID_MEMORY_MS)
    return { outcome: 'accepted', hint }
  }
  return {
    async receive (tenant: string, keys: readonly string[], body: unknown, enqueue: Enqueue, now = Date.now()): Promise<IntakeResult> {
      return await inSpan('webhook intake', { [ATTR.tenant]: tenant }, async (span) => {
        const result = await receive(tenant, keys, body, enqueue, now)
        span.setAttribute(ATTR.outcome, result.outcome)
        if (result.hint !== undefined) span.setAttributes({ [ATTR.webhookId]: result.hint.id, [ATTR.webhookEvent]: result.hint.event })
        return result
      })
    }
  }
}

export type WebhookIntake = ReturnType<typeof createWebhookIntake>
