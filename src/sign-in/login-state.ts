// The OAuth `state` of a sign-in: random, and signed with SESSION_SECRETS together with the time
// it was issued. Nothing about a started sign-in is stored server-side (login-transactions.ts), so
// this is what lets a callback tell a state media-bff issued, still fresh, from a forged or stale
// one without asking any store: the first tells "started in another browser" apart from
// "expired or made up". The secrets sign and verify as for cookies: the first signs, all verify.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

const RANDOM_BYTES = 24
const MAC_BYTES = 16
const STATE_PATTERN = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{22})$/
/** Domain separation: the session secrets also sign cookies. */
const PURPOSE = 'media-bff login state\n'

export interface LoginStateSigner {
  issue: (now: number) => string
  /** When the state was issued, if media-bff issued it with one of its secrets; otherwise undefined. */
  issuedAt: (state: string) => number | undefined
}

export function createLoginStateSigner (secrets: readonly string[]): LoginStateSigner {
  const [current] = secrets
  if (current === undefined) throw new Error('createLoginStateSigner needs at least one secret')
  const macOf = (secret: string, body: string): Buffer => createHmac('sha256', secret).update(PURPOSE).update(body).digest().subarray(0, MAC_BYTES)
  return {
    issue (now) {
      const body = `${Math.floor(now).toString(36)}.${randomBytes(RANDOM_BYTES).toString('base64url')}`
      return `${body}.${macOf(current, body).toString('base64url')}`
    },
    issuedAt (state) {
      const match = STATE_PATTERN.exec(state)
      if (match === null) return undefined
      const [, time = '', random = '', mac = ''] = match
      // Compared as text: a base64url string's last character has spare bits, and a changed one
      // could decode to the same bytes.
      const presented = Buffer.from(mac)
      const body = `${time}.${random}`
      if (!secrets.some((secret) => timingSafeEqual(Buffer.from(macOf(secret, body).toString('base64url')), presented))) return undefined
      return parseInt(time, 36)
    }
  }
}
