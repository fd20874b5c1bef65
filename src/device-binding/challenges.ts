// The challenges a DBSC proof signs (its `jti`): issued without a word to the store, each signed
// (src/device-binding/macs.ts) with what it is for (a registration or a refresh), whose it is (the
// session's handle, or its binding's id) and until when. A challenge is taken once: the store
// remembers a used one until it would have expired anyway, on every replica.

import { randomBytes } from 'node:crypto'
import type { Macs } from './macs.js'

export type ChallengePurpose = 'register' | 'refresh'

const PURPOSE_MARK: Record<ChallengePurpose, string> = { register: 'g', refresh: 'f' }
const PATTERN = /^([gf])\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/

export type ChallengeVerdict = { ok: true, nonce: string, expiresAt: number } | { ok: false, why: 'forged' | 'expired' }

export interface Challenges {
  issue: (purpose: ChallengePurpose, subject: string, now: number, lifetimeMs: number) => string
  /** Whether `challenge` is one media-bff issued for this purpose and subject, still in time. */
  check: (challenge: string, purpose: ChallengePurpose, subject: string, now: number) => ChallengeVerdict
}

export function createChallenges (macs: Macs): Challenges {
  const body = (mark: string, expires: string, nonce: string, subject: string): string => `${mark}.${expires}.${nonce}.${subject}`
  return {
    issue (purpose, subject, now, lifetimeMs) {
      const mark = PURPOSE_MARK[purpose]
      const expires = Math.ceil((now + lifetimeMs) / 1000).toString(36)
      const nonce = randomBytes(16).toString('base64url')
      return `${mark}.${expires}.${nonce}.${macs.sign(body(mark, expires, nonce, subject))}`
    },
    check (challenge, purpose, subject, now) {
      const match = PATTERN.exec(challenge)
      if (match === null) return { ok: false, why: 'forged' }
      const [, mark = '', expires = '', nonce = '', mac = ''] = match
      if (mark !== PURPOSE_MARK[purpose] || !macs.holds(body(mark, expires, nonce, subject), mac)) return { ok: false, why: 'forged' }
      const expiresAt = parseInt(expires, 36) * 1000
      return expiresAt < now ? { ok: false, why: 'expired' } : { ok: true, nonce, expiresAt }
    }
  }
}
