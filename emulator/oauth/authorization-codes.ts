// Authorization codes: single use, short-lived (60 seconds by default). A used code is
// remembered with the family it produced, so a second redemption can revoke those tokens
// (RFC 6749 section 4.1.2).
import { createExpiringMap, type ExpiringMapWork } from '../expiring-map.js'
import { randomToken } from '../random-token.js'

export interface AuthorizationCode {
  code: string
  clientId: string
  redirectUri: string
  userName: string
  scopes: string[]
  codeChallenge: string | undefined
  codeChallengeMethod: 'S256' | 'plain' | undefined
  expiresAt: number
  /** Set once redeemed: the token family it produced. */
  familyId: string | undefined
}

export interface AuthorizationCodeStore {
  create: (fields: Omit<AuthorizationCode, 'code' | 'expiresAt' | 'familyId'>, ttlSeconds: number) => AuthorizationCode
  find: (code: string) => AuthorizationCode | undefined
  work: () => ExpiringMapWork
}

/** Used and expired codes are kept this long to recognise replays, then forgotten. */
const rememberMs = 10 * 60 * 1000

export function createAuthorizationCodeStore (now: () => number = Date.now): AuthorizationCodeStore {
  const codes = createExpiringMap<string, AuthorizationCode>({ sweepEveryMs: 60 * 1000, now })
  return {
    create (fields, ttlSeconds) {
      const record: AuthorizationCode = { ...fields, code: randomToken(), expiresAt: now() + ttlSeconds * 1000, familyId: undefined }
      codes.set(record.code, record, record.expiresAt + rememberMs)
      return record
    },
    find (code) {
      return codes.get(code)
    },
    work: () => codes.work()
  }
}
