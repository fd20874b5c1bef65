// Issued tokens, grouped in families: one family per authorization code, holding every access
// and refresh token that descends from it. Revoking a family is how code reuse and refresh-token
// reuse are punished, and how the revoke hook ends a user's grants.
//
// Records are marked, not deleted, when retired or revoked, so reuse is recognised and the token
// hook can list everything a test might look for in logs; they are forgotten once long expired
// (expiring-map.ts), and each family keeps an index of its records so revoking one is cheap.
import { createExpiringMap, type ExpiringMapWork } from '../expiring-map.js'
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
  work: () => ExpiringMapWork
}

/** How long dead records stay visible (reuse detection, the token hook) before they are forgotten. */
const keepDeadMs = 10 * 60 * 1000
const sweepEveryMs = 60 * 1000

export function stateOf (record: TokenRecord, now = Date.now()): TokenState {
  if (record.revoked) return 'revoked'
  if (record.expiresAt <= now) return 'expired'
  if (record.retired) return 'retired'
  return 'active'
}

export function createTokenStore (now: () => number = Date.now): TokenStore {
  const families = new Map<string, Set<TokenRecord>>()
  const tokens = createExpiringMap<string, TokenRecord>({
    sweepEveryMs,
    now,
    onForget: (_token, record) => {
      const family = families.get(record.familyId)
      family?.delete(record)
      if (family?.size === 0) families.delete(record.familyId)
    }
  })
  let nextFamily = 1

  return {
    startFamily () {
      return `family-${nextFamily++}`
    },
    issue (kind, family, scopes, ttlSeconds) {
      const issuedAt = now()
      const record: TokenRecord = {
        token: randomToken(),
        kind,
        familyId: family.familyId,
        userName: family.userName,
        clientId: family.clientId,
        scopes: [...scopes],
        issuedAt,
        expiresAt: issuedAt + ttlSeconds * 1000,
        retired: false,
        revoked: false
      }
      tokens.set(record.token, record, record.expiresAt + keepDeadMs)
      const members = families.get(record.familyId) ?? new Set<TokenRecord>()
      families.set(record.familyId, members.add(record))
      return record
    },
    findLive (token, kind) {
      const record = tokens.get(token)
      if (record === undefined || record.kind !== kind || record.revoked || record.expiresAt <= now()) return undefined
      return record
    },
    revokeFamily (familyId) {
      for (const record of families.get(familyId) ?? []) record.revoked = true
    },
    revokeUser (userName) {
      const revoked = new Set<string>()
      for (const record of tokens.values()) {
        if ((userName === undefined || record.userName === userName) && !record.revoked) {
          record.revoked = true
          revoked.add(record.familyId)
        }
      }
      return revoked.size
    },
    list () {
      const at = now()
      return tokens.values().map((record) => ({ ...record, scopes: [...record.scopes], state: stateOf(record, at) }))
    },
    work: () => tokens.work()
  }
}
