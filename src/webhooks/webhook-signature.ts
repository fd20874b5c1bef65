// The service's webhook signature: HMAC-SHA256 of `timestamp` followed by `token`, keyed with the
// endpoint's own key, compared in constant time. It proves the service sent that timestamp and
// token, nothing about the body; a timestamp outside the window, or a token already seen, is a
// replay (webhook-intake.ts).
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { WebhookSignature } from './read-webhook.js'

/** How far a timestamp may be from now, either way: the service's clock and ours, and its retries. */
export const MAX_SKEW_S = 300

export type SignatureVerdict = 'ok' | 'bad_signature' | 'stale'

export function signatureOf (key: string, timestamp: string, token: string): string {
  return createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex')
}

/** `keys`: the tenant's webhook keys, any of which may have signed (rotation). */
export function verifySignature (signature: WebhookSignature, keys: readonly string[], nowMs: number): SignatureVerdict {
  const given = Buffer.from(signature.signature, 'hex')
  const signed = keys.some((key) => timingSafeEqual(Buffer.from(signatureOf(key, signature.timestamp, signature.token), 'hex'), given))
  if (!signed) return 'bad_signature'
  return Math.abs(nowMs / 1000 - Number(signature.timestamp)) > MAX_SKEW_S ? 'stale' : 'ok'
}
