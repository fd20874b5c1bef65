// user/info (`GET {api}/user/info`), read as untrusted input: its shape is unpublished, and what
// it says ends up in the session and in /auth/session.
import { scopesFrom } from '../scopes.js'
import { jsonRecord } from './json-record.js'
import { hasUnsafeCharacters } from '../safe-text.js'

export interface UserInfo {
  userId: string | undefined
  name: string | undefined
  email: string | undefined
  /** Scopes the account is entitled to; undefined when the service does not say. */
  scopes: string[] | undefined
}

const MAX_PROFILE_FIELD = 256

/**
 * user/info's shape is unpublished: read what is there, tolerate what is not, and keep only
 * short plain strings (they end up in the session and in /auth/session: no control or
 * bidirectional characters, src/safe-text.ts) and known scopes.
 */
export function readUserInfo (body: unknown): UserInfo {
  const record = jsonRecord(body) ?? {}
  const text = (value: unknown): string | undefined => {
    const string = typeof value === 'string' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : undefined
    return string !== undefined && string.length <= MAX_PROFILE_FIELD && !hasUnsafeCharacters(string) ? string : undefined
  }
  const listed = Array.isArray(record.scopes) ? record.scopes : typeof record.scopes === 'string' ? record.scopes.split(/[\s,]+/) : undefined
  const scopes = listed === undefined ? undefined : scopesFrom(listed)
  return { userId: text(record.user_id ?? record.id), name: text(record.name), email: text(record.email), scopes }
}
