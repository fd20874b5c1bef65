// Ending the sign-in a session holds, from the request that carries it (sign-out, an expired
// session, a grant found gone). Its record goes first: once that is gone the session is over on
// every instance, and nothing after it can half-undo it. If the record cannot be dropped (the store
// is down), nothing has changed and the caller says so. Then its grant and its entry in its
// person's index go, and a failure there is left to their lifetimes and reported; the ending is
// made known on the one path (session-endings.ts), which never fails the ending either.
import type { Ending, SessionEnded } from './session-endings.js'
import type { Person } from './session-index.js'
import { budgetKeyOf, personOf, type StoredSession } from './signed-in.js'

export interface EndSessionParts {
  deleteGrant: (grantId: string) => Promise<void>
  /** Drops a session's entry from its person's index. */
  forget: (person: Person, handle: string) => Promise<void>
  ended: SessionEnded
  /** What an ending left behind when the store failed after the record was gone (a grant, an index entry). */
  leftBehind: (what: string, error: unknown) => void
}

/** Rejects only when the record could not be dropped: then the session is as it was. */
export async function endSession (parts: EndSessionParts, session: StoredSession, dropRecord: () => Promise<void>, ending: Ending): Promise<void> {
  await dropRecord()
  const person = personOf(session)
  const { grantId, handle } = session
  await Promise.all([
    grantId === undefined ? undefined : parts.deleteGrant(grantId).catch((error: unknown) => { parts.leftBehind('its grant (gone when it expires)', error) }),
    person === undefined || handle === undefined ? undefined : parts.forget(person, handle).catch((error: unknown) => { parts.leftBehind('its entry in its person\'s index (pruned when next listed)', error) })
  ])
  await parts.ended(ending, {
    live: session.authenticatedAt === undefined ? 0 : 1,
    handles: handle === undefined ? [] : [handle],
    whose: [budgetKeyOf(session)]
  })
}
