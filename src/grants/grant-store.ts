// Grants: the tokens of one sign-in, kept apart from the session blob. Each record is versioned,
// sealed with the token cipher (bound to its id) and written with compare-and-set, so a slow
// request can never write back older tokens, whatever happens to the session around it.
import { formatOf, isReadableFormat, RECORD_FORMAT } from '../store/record-format.js'
import { randomBytes } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'
import type { TokenCipher } from '../store/token-cipher.js'
import { createBoundedMemo } from '../bounded-memo.js'
import { personBudgetKey } from '../sessions/signed-in.js'

/** Grants opened recently, by their sealed record: every signed-in request reads its grant. */
const OPENED_MEMO_ENTRIES = 4096

export interface Grant {
  /** The record's format (src/store/record-format.ts); absent in records of media-bff 0.1.0. */
  format?: number
  id: string
  version: number
  tenant: string
  userId: string | undefined
  accessToken: string
  refreshToken: string | undefined
  /** Epoch milliseconds when the access token expires. */
  expiresAt: number
  /** Scopes the authorization server granted. */
  scopes: string[]
  createdAt: number
  refreshedAt: number | undefined
  /**
   * Epoch milliseconds after which the grant is gone: its session's absolute deadline. Every
   * write's TTL runs to it, so a refresh never extends a grant beyond the session it belongs to.
   */
  notAfter: number
}

export type NewGrant = Omit<Grant, 'format' | 'id' | 'version' | 'createdAt' | 'refreshedAt' | 'notAfter'>

/** A grant as read, with the exact stored value that compare-and-set must match. */
export interface StoredGrant {
  grant: Grant
  stored: string
}

export interface GrantStoreOptions {
  /** A grant's whole life, from sign-in (the session's absolute timeout). */
  ttlMs: number
  /**
   * After a grant of a known person was rewritten or deleted here: replicas that keep a copy of
   * it learn from this (src/sessions/session-epochs.ts). Ending a sign-in deletes its grant by id
   * and says so on the ending's own path.
   */
  changed?: (budgetKey: string) => Promise<void>
}

export function createGrantStore (store: KeyValueStore, cipher: TokenCipher, { ttlMs, changed }: GrantStoreOptions) {
  const key = (id: string): string => `grant:${id}`
  const seal = (grant: Grant): string => cipher.encrypt(JSON.stringify(grant), key(grant.id))
  // A sealed record always opens to the same grant, so it is parsed once and shared, frozen: a
  // change is always a new record (replace), never an edit of one read.
  const opened = createBoundedMemo<Grant>(OPENED_MEMO_ENTRIES)
  const open = (id: string, stored: string): Grant => {
    const remembered = opened.get(stored)
    if (remembered !== undefined && remembered.id === id) return remembered
    const grant = JSON.parse(cipher.decrypt(stored, key(id))) as Grant
    if (!isReadableFormat(grant)) throw new Error(`a grant of record format ${formatOf(grant)}`)
    Object.freeze(grant.scopes)
    opened.set(stored, Object.freeze(grant))
    return grant
  }

  return {
    async create (fields: NewGrant): Promise<Grant> {
      const now = Date.now()
      const grant: Grant = { ...fields, format: RECORD_FORMAT, id: randomBytes(18).toString('base64url'), version: 1, createdAt: now, refreshedAt: undefined, notAfter: now + ttlMs }
      await store.set(key(grant.id), seal(grant), ttlMs)
      return grant
    },

    async read (id: string): Promise<StoredGrant | undefined> {
      const stored = await store.get(key(id))
      if (stored === undefined) return undefined
      let grant: Grant
      try {
        grant = open(id, stored)
      } catch {
        // Unreadable (tampered, or sealed with a key no longer configured): as good as absent.
        return undefined
      }
      // The store's TTL ends it too; this also covers a clock ahead of the store's.
      return deadlineOf(grant) > Date.now() ? { grant, stored } : undefined
    },

    /** Writes `next` (version + 1) only if the record is still exactly `previous`. */
    async replace (previous: StoredGrant, changes: Partial<Omit<Grant, 'id' | 'version' | 'createdAt' | 'notAfter'>>): Promise<StoredGrant | undefined> {
      // Written in this version's format; fields of another version's format ride along untouched.
      const grant: Grant = { ...previous.grant, ...changes, format: RECORD_FORMAT, id: previous.grant.id, version: previous.grant.version + 1 }
      const leftMs = deadlineOf(grant) - Date.now()
      if (leftMs <= 0) return undefined
      const stored = seal(grant)
      const written = await store.compareAndSet(key(grant.id), previous.stored, stored, leftMs)
      if (!written) return undefined
      await changedGrant(grant)
      return { grant, stored }
    },

    async delete (id: string): Promise<void> {
      await store.delete(key(id))
    },

    /** Deletes the record only if it is still exactly the one read: never a newer write. */
    async deleteIfUnchanged (previous: StoredGrant): Promise<void> {
      if (await store.deleteIfEquals(key(previous.grant.id), previous.stored)) await changedGrant(previous.grant)
    }
  }

  /**
   * The write stands whether or not the news of it reaches the store: a replica that misses it
   * reads the grant again within MAX_AGE_MS (src/sessions/session-core.ts), and an old access
   * token it uses meanwhile is refused and refreshed like any other.
   */
  async function changedGrant ({ tenant, userId }: Grant): Promise<void> {
    if (changed !== undefined && userId !== undefined) await changed(personBudgetKey({ tenant, userId })).catch(() => {})
  }

  /** Records written before notAfter existed end a whole life after their creation. */
  function deadlineOf (grant: Grant): number {
    return typeof grant.notAfter === 'number' ? grant.notAfter : grant.createdAt + ttlMs
  }
}

export type GrantStore = ReturnType<typeof createGrantStore>
