// Opening a session for a request, in one exchange with the store when this replica served the
// session recently: the session's record and its grant are kept here, as read, with the epoch of
// their person they were read under (session-epochs.ts); each request reads that epoch, with its
// count against the route's rate limit, and uses the copy while the epoch is unchanged. Every
// change to a person's sessions or grants drops their epoch after it is made, so an ending on
// any replica reaches every other on its next request; copies are re-read at least every
// MAX_AGE_MS too (a monotonic clock, from before the reads), as a bound on what a replica that
// does not drop epochs (a version before 0.3.0 during a rolling upgrade) can leave stale.
//
// Only sessions of a known person whose grant is theirs are kept: the grant store drops the epoch
// of the person a grant names (src/grants/grant-store.ts), so such a grant's refresh on another
// replica is seen here too. Any other session is read on every request, as before.
//
// The order matters: a copy is always read after the epoch it is kept under, so a change made
// between the two leaves a newer epoch than the copy's, never the other way round.
import { StoreFullError, type ReadAndCounted } from '../store/key-value-store.js'
import { budgetKeyOf, personBudgetKey, type SessionRecord } from './signed-in.js'
import type { CountAgainst, SessionEpochs } from './session-epochs.js'

/** The longest a copy is used without being read again, whatever its epoch says. */
export const MAX_AGE_MS = 5_000
/** Sessions kept per replica; beyond it the oldest kept goes. */
const MAX_ENTRIES = 10_000

/** What the core needs to know of a grant as the grant store reads it (src/grants/grant-store.ts). */
export interface GrantAsRead {
  grant: { id: string, tenant: string, userId: string | undefined }
}

export interface OpenedSession<G extends GrantAsRead = GrantAsRead> {
  /** The stored record (undefined: none, or ended). */
  record: SessionRecord | undefined
  /** The session's grant as read with it (undefined: read it when it is needed). */
  grant: G | undefined
  /** The request's count against its person's limit: asked for, and counted by the store. */
  counted: { count: number, resetInMs: number } | undefined
}

export interface SessionCoreOptions<G extends GrantAsRead> {
  epochs: SessionEpochs
  /** The session store's read of a record (src/store/session-store.ts). */
  readSession: (sid: string) => Promise<unknown>
  readGrant: (grantId: string) => Promise<G | undefined>
  /** A monotonic clock in milliseconds for the copies' age (tests move it on). */
  now?: () => number
  maxAgeMs?: number
  maxEntries?: number
}

interface Kept<G> {
  record: SessionRecord
  grant: G
  budgetKey: string
  epoch: string
  /** When its epoch was about to be read: its age runs from before every read it was made of. */
  readAt: number
}

export interface SessionCore<G extends GrantAsRead = GrantAsRead> {
  /**
   * The session `sid` names, its grant, and the request's count against `counting`: one exchange
   * with the store for a session kept here, up to four for one that is not (or is out of date).
   * A store that cannot be reached rejects (StoreUnavailableError); one at maxmemory, which
   * refuses the epoch's and the count's writes, still gives the record, uncounted.
   */
  open: (sid: string, counting?: CountAgainst) => Promise<OpenedSession<G>>
  /**
   * This replica's copy of the session, as the last `open` left it, without a word to the store:
   * what the request `open` has just checked restores (src/sessions/sessions.ts), and the grant it
   * acts with. Nobody else may trust it.
   */
  peek: (sid: string) => { record: SessionRecord, grant: G } | undefined
  /** Drops this replica's copy of a session that ended here (the epoch tells the others). */
  forget: (sid: string) => void
  /** Sessions kept (for tests and the bench). */
  readonly size: number
}

export function createSessionCore<G extends GrantAsRead> ({ epochs, readSession, readGrant, now = () => performance.now(), maxAgeMs = MAX_AGE_MS, maxEntries = MAX_ENTRIES }: SessionCoreOptions<G>): SessionCore<G> {
  // In the order the copies were read (each is deleted before it is put back): the oldest first.
  const kept = new Map<string, Kept<G>>()

  /** Makes room, and lets go of copies past their age (they hold tokens, and would be read again anyway). */
  const keepRoom = (at: number): void => {
    for (const [sid, copy] of kept) {
      if (kept.size < maxEntries && at - copy.readAt < maxAgeMs) break
      kept.delete(sid)
    }
  }

  const read = async (sid: string): Promise<SessionRecord | undefined> => recordOf(await readSession(sid))

  /** Reads the session and its grant again, after their epoch: kept when they may be. */
  const reread = async (sid: string, budgetKey: string, epoch: ReadAndCounted, grantId: unknown, readAt: number): Promise<OpenedSession<G>> => {
    const [record, first] = await Promise.all([read(sid), typeof grantId === 'string' ? readGrant(grantId) : undefined])
    // The session moved to another grant between the two reads: that one is its grant.
    const grant = typeof record?.grantId === 'string' && record.grantId !== grantId ? await readGrant(record.grantId) : first
    kept.delete(sid)
    if (record !== undefined && grant !== undefined && keepable(grant, budgetKey)) {
      keepRoom(now())
      kept.set(sid, { record, grant, budgetKey, epoch: epoch.value, readAt })
    }
    return { record, grant, counted: countedOf(epoch) }
  }

  return {
    async open (sid, counting) {
      try {
        const copy = kept.get(sid)
        const startedAt = now()
        if (copy !== undefined) {
          const epoch = await epochs.read(copy.budgetKey, counting)
          if (epoch.value === copy.epoch && startedAt - copy.readAt < maxAgeMs) return { record: copy.record, grant: copy.grant, counted: countedOf(epoch) }
          return await reread(sid, copy.budgetKey, epoch, copy.record.grantId, startedAt)
        }
        const record = await read(sid)
        const budgetKey = budgetKeyOf(record)
        if (record === undefined || budgetKey === undefined) return { record, grant: undefined, counted: undefined }
        return await reread(sid, budgetKey, await epochs.read(budgetKey, counting), record.grantId, startedAt)
      } catch (error) {
        if (!(error instanceof StoreFullError)) throw error
        // Redis at maxmemory refuses the scripts that write (the epoch, the count); reads still
        // work, so the session is read as it is, and kept nowhere.
        kept.delete(sid)
        return { record: await read(sid), grant: undefined, counted: undefined }
      }
    },
    peek (sid) {
      return kept.get(sid)
    },
    forget (sid) {
      kept.delete(sid)
    },
    get size () { return kept.size }
  }
}

/**
 * Whether the copy can be kept: a signed-in session of a known person, with a grant of that same
 * person (a change to the grant drops this person's epoch).
 */
function keepable (grant: GrantAsRead, budgetKey: string): boolean {
  const { userId, tenant } = grant.grant
  return userId !== undefined && personBudgetKey({ tenant, userId }) === budgetKey
}

function countedOf ({ count, resetInMs }: ReadAndCounted): OpenedSession['counted'] {
  return count === undefined || resetInMs === undefined ? undefined : { count, resetInMs }
}

function recordOf (loaded: unknown): SessionRecord | undefined {
  return loaded !== null && typeof loaded === 'object' ? loaded : undefined
}
