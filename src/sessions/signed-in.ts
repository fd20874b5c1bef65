// Who is signed in here: everything the rest of media-bff needs to know of a signed-in session,
// worked out in this one place from the session's stored record and the timeouts. The session
// plugin computes it once per request (request.signedIn); routes, plugins and domain code take it
// from there and never restate its rules: when a session ends (idle or absolute), whose budget
// its calls count against, which grant and tenant it acts with, how long its record lives.
import type { Person } from './session-index.js'
import { isReadableFormat } from '../store/record-format.js'
import { bindingOf, type Binding } from '../device-binding/device-binding.js'

export interface SessionTimeouts {
  /** SESSION_IDLE_TIMEOUT: unused this long, the session ends. */
  idleTimeoutMs: number
  /** SESSION_ABSOLUTE_TIMEOUT: this long after sign-in, the session ends whatever happens. */
  absoluteTimeoutMs: number
}

/**
 * A stored session: what media-bff writes (the sign-in's fields, src/sign-in/session-after-sign-in.ts,
 * and the touches). The one declaration of its fields; @fastify/session's Session carries them
 * (plugins/session.ts), and SessionRecord is the same fields as read, unchecked.
 */
export interface StoredSession {
  /** src/store/record-format.ts; absent in records of media-bff 0.1.0. */
  format?: number
  grantId?: string
  tenant?: string
  user?: SessionUser
  /** Scopes the account is entitled to, from user/info (undefined when it did not say). */
  entitlements?: string[] | undefined
  /** Scopes asked for in a re-authorization and not granted: no further redirect for them. */
  deniedScopes?: string[]
  /** Owner key of this sign-in's upload registrations; kept across re-authorization. */
  uploadOwner?: string
  /** This session's opaque id in its person's index (GET /auth/sessions); never the cookie's id. */
  handle?: string
  authenticatedAt?: number
  lastSeen?: number
  /** The key the session is bound to (DEVICE_BOUND_SESSIONS), once the browser registered one. */
  binding?: Binding
  /** The device and network it signed in from (src/sessions/device.ts, network.ts), as anomaly signals compare them. */
  signInDevice?: string
  signInNetwork?: string
  /**
   * The text the record was read as, never stored itself: a save is a compare-and-set against it
   * (src/store/session-store.ts).
   */
  asStored?: string
}

/** A stored session as read from a store: every field is checked before use. */
export type SessionRecord = { [Field in keyof StoredSession]?: unknown }

export interface SessionUser {
  id: string | undefined
  name: string | undefined
  email: string | undefined
}

export interface Deadlines {
  /** When the idle timeout ends it, unless it is used before. */
  idleEndsAt: number
  /** When it ends in any case. */
  absoluteEndsAt: number
  /** The earlier of the two. */
  endsAt: number
}

export interface SignedIn extends Deadlines {
  /** The session's id in the store (never shown: with the cookie secret it would make a cookie). */
  sid: string
  /** Its opaque id in its person's index, as people and pages see it. */
  handle: string
  grantId: string
  tenant: string
  user: SessionUser
  /** Whose session it is, when the user id is known (user/info or the token response said). */
  person: Person | undefined
  /**
   * Whose budget its calls count against (rate limits, relayed calls in flight, live channels):
   * the person, so a second sign-in or browser shares it; without a known user id, the sign-in.
   */
  budgetKey: string
  /** Owner of its upload registrations; kept across a re-authorization. */
  uploadOwner: string
  /** Scopes a re-authorization already came back without: no further redirect for them. */
  deniedScopes: readonly string[]
  /** Scopes the account is entitled to, from user/info (undefined when it did not say). */
  entitlements: readonly string[] | undefined
  authenticatedAt: number
  lastSeen: number
  /** The key it is bound to: its calls show the short-lived cookie only that key renews. */
  binding: Binding | undefined
  /** Where it signed in from (undefined in sessions begun before 0.4.0): what anomaly signals compare. */
  signedInFrom: { device: string, network: string } | undefined
}

/** The session's deadlines, from when it signed in and when it was last used. */
export function deadlinesOf (authenticatedAt: number, lastSeen: number, timeouts: SessionTimeouts): Deadlines {
  const idleEndsAt = lastSeen + timeouts.idleTimeoutMs
  const absoluteEndsAt = authenticatedAt + timeouts.absoluteTimeoutMs
  return { idleEndsAt, absoluteEndsAt, endsAt: Math.min(idleEndsAt, absoluteEndsAt) }
}

/** The signed-in session a record holds, or undefined: none signed in there (or a record that is not one). */
export function signedInOf (sid: string, record: SessionRecord, timeouts: SessionTimeouts): SignedIn | undefined {
  const { grantId, tenant, authenticatedAt, handle } = record
  if (!isReadableFormat(record)) return undefined
  if (typeof grantId !== 'string' || typeof tenant !== 'string' || typeof authenticatedAt !== 'number' || typeof handle !== 'string') return undefined
  const lastSeen = lastSeenOf(record, authenticatedAt)
  const user = userOf(record.user)
  const person = personOf({ tenant, user })
  const uploadOwner = typeof record.uploadOwner === 'string' ? record.uploadOwner : grantId
  return {
    sid,
    handle,
    grantId,
    tenant,
    user,
    person,
    budgetKey: person === undefined ? `sign-in:${uploadOwner}` : personBudgetKey(person),
    uploadOwner,
    deniedScopes: strings(record.deniedScopes) ?? [],
    entitlements: strings(record.entitlements),
    authenticatedAt,
    lastSeen,
    binding: record.binding === undefined ? undefined : bindingOf(record.binding),
    signedInFrom: typeof record.signInDevice === 'string' && typeof record.signInNetwork === 'string' ? { device: record.signInDevice, network: record.signInNetwork } : undefined,
    ...deadlinesOf(authenticatedAt, lastSeen, timeouts)
  }
}

/** When the session a record holds ends unless it is used before; undefined when it is over or none. */
export function liveUntil (record: SessionRecord | undefined, timeouts: SessionTimeouts, now: number): number | undefined {
  if (record === undefined || typeof record.authenticatedAt !== 'number') return undefined
  const { endsAt } = deadlinesOf(record.authenticatedAt, lastSeenOf(record, record.authenticatedAt), timeouts)
  return endsAt >= now ? endsAt : undefined
}

/**
 * How long a session's record is kept in the store after a write: until its idle timeout, never
 * beyond its absolute one (at least a second, so a write never has a TTL of nothing).
 */
export function recordLifetimeMs (record: SessionRecord, timeouts: SessionTimeouts, now: number): number {
  const authenticatedAt = typeof record.authenticatedAt === 'number' ? record.authenticatedAt : now
  return Math.max(1000, Math.min(timeouts.idleTimeoutMs, authenticatedAt + timeouts.absoluteTimeoutMs - now))
}

/** A person's budget key (SignedIn.budgetKey): theirs in every session and every grant of theirs. */
export function personBudgetKey (person: Person): string {
  return `user:${person.tenant}:${person.userId}`
}

/** The person a budget key names (personBudgetKey), or undefined: a sign-in whose user id is unknown. */
export function personOfBudgetKey (budgetKey: string): Person | undefined {
  const match = /^user:([^:]+):(.+)$/.exec(budgetKey)
  return match === null ? undefined : { tenant: match[1] ?? '', userId: match[2] ?? '' }
}

/** The budget key of the session a record holds (SignedIn.budgetKey), or undefined: none signed in there. */
export function budgetKeyOf (record: SessionRecord | undefined): string | undefined {
  if (record === undefined || typeof record.grantId !== 'string' || typeof record.tenant !== 'string' || typeof record.authenticatedAt !== 'number') return undefined
  const person = personOf({ tenant: record.tenant, user: userOf(record.user) })
  if (person !== undefined) return personBudgetKey(person)
  return `sign-in:${typeof record.uploadOwner === 'string' ? record.uploadOwner : record.grantId}`
}

/** Whose a session is: its tenant and user id, when the user id is known. */
export function personOf (session: { tenant?: string | undefined, user?: { id?: string | undefined } | undefined }): Person | undefined {
  const userId = session.user?.id
  return session.tenant === undefined || userId === undefined ? undefined : { tenant: session.tenant, userId }
}

/**
 * The strings of a list read from the store. A list that holds nothing else is taken as it is, not
 * copied: records read from the store are frozen and shared (src/store/session-store.ts), and this
 * runs on every signed-in request.
 */
function strings (value: unknown): readonly string[] | undefined {
  if (!Array.isArray(value)) return undefined
  for (const item of value as unknown[]) {
    if (typeof item !== 'string') return value.filter((each): each is string => typeof each === 'string')
  }
  return value as readonly string[]
}

/** When the session was last used: as signed in, until a request moved it on. */
function lastSeenOf (record: SessionRecord, authenticatedAt: number): number {
  return typeof record.lastSeen === 'number' ? record.lastSeen : authenticatedAt
}

function userOf (value: unknown): SessionUser {
  const user = value !== null && typeof value === 'object' ? value as Record<string, unknown> : {}
  const text = (field: unknown): string | undefined => typeof field === 'string' ? field : undefined
  return { id: text(user.id), name: text(user.name), email: text(user.email) }
}
