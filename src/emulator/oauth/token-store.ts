// Issued tokens, grouped in families: one family per authorization code, holding every access
// and refresh token that descends from it. Revoking a family is how code reuse and refresh-token
// reuse are punished, and how the revoke hook ends a user's grants.
//
// Records are marked, not deleted, when retired or revoked, so reuse is recognised and the token
// hook can list everything a test might look for in logs; they are pruned once long expired.
import { randomToken } from '../random-token.js'

export type TokenState = 'active' | 'retired' | 'revoked' | 'expired'

export interface TokenRecord {
  token: string
  kind: 'access' | 'refresh'
  familyId: string
  userName: string
  clientId: string
  scopes: string[]
  issuedAt: number
  expiresAt: number
  /** Refresh tokens only: replaced by a newer one (rotation). */
  retired: boolean
  revoked: boolean
}

export interface TokenStore {
  startFamily: () => string
  issue: (kind: 'access' | 'refresh', family: { familyId: string, userName: string, clientId: string }, scopes: string[], ttlSeconds: number) => TokenRecord
  /** The record of a token that is neither revoked nor expired (retired refresh tokens included). */
  findLive: (token: string, kind: 'access' | 'refresh') => TokenRecord | undefined
  revokeFamily: (familyId: string) => void
  /** Revokes every family of one user, or of everybody. */
  revokeUser: (userName?: string) => number
  list: () => Array<TokenRecord & { state: TokenState }>
}

/** How long dead records stay visible (reuse detection, the token hook) before they are pruned. */
const keepDeadMs = 10 * 60 * 1000

export function stateOf (record: TokenRecord, now = Date.now()): TokenState {
  if (record.revoked) return 'revoked'
  if (record.expiresAt <= now) return 'expired'
  if (record.retired) return 'retired'
  return 'active'
}

export function createTokenStore (): TokenStore {
  const tokens = new Map<string, TokenRecord>()
  let nextFamily = 1

  const prune = (now: number): void => {
    for (const [token, record] of tokens) {
      if (record.expiresAt + keepDeadMs < now) tokens.delete(token)
    }
  }

  return {
    startFamily () {
      return `family-${nextFamily++}`
    },
    issue (kind, family, scopes, ttlSeconds) {
      const now = Date.now()
      prune(now)
      const record: TokenRecord = {
        token: randomToken(),
        kind,
        familyId: family.familyId,
        userName: family.userName,
        clientId: family.clientId,
        scopes: [...scopes],
        issuedAt: now,
        expiresAt: now + ttlSeconds * 1000,
        retired: false,
        revoked: false
      }
      tokens.set(record.token, record)
      return record
    },
    findLive (token, kind) {
      const record = tokens.get(token)
      if (record === undefined || record.kind !== kind || record.revoked || record.expiresAt <= Date.now()) return undefined
      return record
    },
    revokeFamily (familyId) {
      for (const record of tokens.values()) {
        if (record.familyId === familyId) record.revoked = true
      }
    },
    revokeUser (userName) {
      const families = new Set<string>()
      for (const record of tokens.values()) {
        if ((userName === undefined || record.userName === userName) && !record.revoked) {
          record.revoked = true
          families.add(record.familyId)
        }
      }
      return families.size
    },
    list () {
      const now = Date.now()
      return [...tokens.values()].map((record) => ({ ...record, scopes: [...record.scopes], state: stateOf(record, now) }))
    }
  }
}
