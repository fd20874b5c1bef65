// Ending the sign-in a session holds, from the request that carries it (sign-out, an expired
// session, a grant found gone): its grant deleted, its entry in its person's index dropped, its
// record dropped, and the ending made known on the one path (session-endings.ts). The cookie layer
// drops the record (it also forgets the session it restored) and clears the cookie.
import type { Ending, SessionEnded } from './session-endings.js'
import type { Person } from './session-index.js'
import { budgetKeyOf, personOf, type StoredSession } from './signed-in.js'

export interface EndSessionParts {
  deleteGrant: (grantId: string) => Promise<void>
  /** Drops a session's entry from its person's index. */
  forget: (person: Person, handle: string) => Promise<void>
  ended: SessionEnded
}

export async function endSession (parts: EndSessionParts, session: StoredSession, dropRecord: () => Promise<void>, ending: Ending): Promise<void> {
  if (session.grantId !== undefined) await parts.deleteGrant(session.grantId)
  const person = personOf(session)
  if (person !== undefined && session.handle !== undefined) await parts.forget(person, session.handle)
  await dropRecord()
  await parts.ended(ending, {
    live: session.authenticatedAt === undefined ? 0 : 1,
    handles: session.handle === undefined ? [] : [session.handle],
    whose: [budgetKeyOf(session)]
  })
}
