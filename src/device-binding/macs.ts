// The MACs device binding signs its challenges and short-lived cookies with: keyed by
// SESSION_SECRETS as the session cookie is (the first signs, all verify), apart from every other
// use of those secrets by a purpose of its own.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto'

const MAC_BYTES = 16

export interface Macs {
  /** The MAC of `body`, base64url (22 characters). */
  sign: (body: string) => string
  /** Whether `mac` is the MAC of `body` under any of the secrets. */
  holds: (body: string, mac: string) => boolean
}

export function createMacs (secrets: readonly string[], purpose: string): Macs {
  if (secrets.length === 0) throw new Error('createMacs needs at least one secret')
  const keys: KeyObject[] = secrets.map((secret) => createSecretKey(createHmac('sha256', secret).update(`media-bff ${purpose}`).digest()))
  const macOf = (key: KeyObject, body: string): string => createHmac('sha256', key).update(body).digest().subarray(0, MAC_BYTES).toString('base64url')
  const [current] = keys as [KeyObject]
  return {
    sign: (body) => macOf(current, body),
    holds (body, mac) {
      // Compared as text: a base64url string's last character has spare bits.
      const presented = Buffer.from(mac)
      return keys.some((key) => {
        const expected = Buffer.from(macOf(key, body))
        return expected.length === presented.length && timingSafeEqual(expected, presented)
      })
    }
  }
}
