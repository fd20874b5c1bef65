// Receiving one webhook: read, verify, refuse replays, and tell a first delivery from a retry,
// before anything else is done. Nothing is written to the store for a webhook that is not signed
// with the tenant's key and fresh, so only the service itself can make it write.
// The signature covers the timestamp and token only, so anyone who saw one delivery could send
// its signature with another body until the timestamp is stale. Each token is therefore bound to
// the first id it came with:
//   - the token with another id: a forged body on a captured signature, refused;
//   - the same token and id again, or the same id with a fresh token: the service retrying (or
//     the very delivery resent), 2xx and nothing done twice.
import { createHash } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'
import { readWebhook, type WebhookHint } from './read-webhook.js'
import { MAX_SKEW_S, verifySignature } from './webhook-signature.js'

export type IntakeOutcome = 'accepted' | 'duplicate' | 'refused_body' | 'refused_signature' | 'refused_stale' | 'refused_replay'

export interface IntakeResult {
  outcome: IntakeOutcome
  /** Why it was refused, for the log line (never the body or the signature). */
  reason?: string
  /** Set when accepted: what to follow up. */
  hint?: WebhookHint
}

/** Ids are remembered this long: the service's retries of one event come within minutes. */
const ID_MEMORY_MS = 24 * 3_600_000
/** A token outlives the window in which its timestamp is accepted. */
const TOKEN_MEMORY_MS = 2 * MAX_SKEW_S * 1000 + 60_000

export function createWebhookIntake (store: KeyValueStore) {
  const digest = (value: string): string => createHash('sha256').update(value).digest('base64url')
  return {
    async receive (tenant: string, keys: readonly string[], body: unknown, now = Date.now()): Promise<IntakeResult> {
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
      // Marked only now, so that a delivery the store failed on half-way is handled when retried.
      if (!await store.setIfAbsent(`webhook-id:${tenant}:${hint.id}`, '1', ID_MEMORY_MS)) return { outcome: 'duplicate', hint }
      return { outcome: 'accepted', hint }
    }
  }
}

export type WebhookIntake = ReturnType<typeof createWebhookIntake>
