// The signature block of a delivery, as the service documents it: a timestamp (Unix seconds, as
// a string), a random token, and the lowercase hex HMAC-SHA256 of timestamp followed by token,
// keyed with the endpoint's own key. Receivers check it to know the service sent the body, the
// timestamp to refuse old ones and the token to refuse replays, so every attempt gets new ones.
import { createHmac, randomBytes } from 'node:crypto'

export interface WebhookSignature {
  timestamp: string
  token: string
  signature: string
}

export function webhookSignature (key: string, timestamp: string, token: string): string {
  return createHmac('sha256', key).update(timestamp + token).digest('hex')
}

/** The current time in Unix seconds, as the body carries it. */
export function webhookTimestamp (nowMs: number = Date.now()): string {
  return String(Math.floor(nowMs / 1000))
}

/** 50 random hex characters. */
export function webhookToken (): string {
  return randomBytes(25).toString('hex')
}

/**
 * A new signature block: a timestamp of now, a new token, signed with the key. A part given
 * (the test hook forging or replaying) is used as given, and a given timestamp or token is
 * signed as it is sent, unless a signature is given too.
 */
export function signatureBlock (key: string, given: Partial<WebhookSignature> = {}): WebhookSignature {
  const timestamp = given.timestamp ?? webhookTimestamp()
  const token = given.token ?? webhookToken()
  return { timestamp, token, signature: given.signature ?? webhookSignature(key, timestamp, token) }
}
