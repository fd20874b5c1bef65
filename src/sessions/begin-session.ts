// Beginning a session for a completed sign-in: the id rotated (no fixation) and the session it
// replaces ended, wherever it lives (the request's own, or the one the sign-in began in, which the
// callback, arriving without the SameSite=Strict cookie, only knows by id), the grant it held
// deleted, then the new session saved before it is indexed under its person (so nobody finds an
// entry without its session), and the person's oldest sessions ended beyond their cap. Nothing is
// kept if the store fails meanwhile. The cookie layer (plugins/session.ts) rotates the id, holds
// the new session and saves it.
import type { SessionEnded } from './session-endings.js'
import { newSessionHandle, type IndexedSession, type Person } from './session-index.js'
import type { Ended } from './person-sessions.js'
import { budgetKeyOf, personOf, type SignedIn, type StoredSession } from './signed-in.js'

export interface BeginSessionParts {
  /** Drops a session's record by id. */
  dropSession: (sid: string) => Promise<void>
  deleteGrant: (grantId: string) => Promise<void>
  /** Drops a session's entry from its person's index. */
  forget: (person: Person, handle: string) => Promise<void>
  /** Indexes a new session in place of `replacing`; resolves to the sessions ended beyond the cap. */
  recordSignIn: (person: Person, handle: string, session: IndexedSession, replacing?: string) => Promise<Ended>
  ended: SessionEnded
}

/** The session the request holds, as the cookie layer holds it. */
export interface HeldSession {
  sid: string
  record: StoredSession
  /** Gives the request a new, empty session under a new id; the old record is dropped. */
  rotate: () => Promise<void>
  /**
   * Saves `record` as the request's (new) session; resolves to its id, or undefined when no cookie
   * can carry it (a Secure cookie over plain http): nothing is then saved or indexed.
   */
  save: (record: object) => Promise<string | undefined>
  /** Drops the request's (new) session. */
  destroy: () => Promise<void>
}

/** A completed sign-in's session: what the callback puts in it (src/sign-in/session-after-sign-in.ts). */
export interface NewSession extends StoredSession {
  grantId: string
  tenant: string
  authenticatedAt: number
}

export interface Beginning<S extends NewSession> {
  session: S
  /** The live session the sign-in replaces when known (the request's, or the one it began in). */
  replacing: SignedIn | undefined
  /** How the index describes it (session-index.ts). */
  device: string
  network: string
  /** Once saved, before it is indexed (src/sessions/replaced-sessions.ts). */
  afterSave?: (sid: string, previous: { sid: string, live: boolean }) => Promise<void>
}

export async function beginSession<S extends NewSession> (parts: BeginSessionParts, held: HeldSession, { session, replacing, device, network, afterSave }: Beginning<S>): Promise<void> {
  // What it replaces: the live session `replacing` names, else whatever the request holds (expired
  // or none): the routes that begin one never end it first (config.replacesSession).
  const previous = held.record
  const previousSid = held.sid
  const previousPerson = replacing === undefined ? personOf(previous) : replacing.person
  const previousHandle = replacing === undefined ? previous.handle : replacing.handle
  const oldGrant = replacing === undefined ? previous.grantId : replacing.grantId
  await held.rotate()
  // rotate() dropped the session the request held; the one the sign-in began in may be another.
  if (replacing !== undefined && replacing.sid !== previousSid) await parts.dropSession(replacing.sid)
  if (oldGrant !== undefined) await parts.deleteGrant(oldGrant)
  // This browser's open pages follow it to the new session (they reconnect with the new cookie).
  if (previousHandle !== undefined) await parts.ended('replaced', { live: previous.authenticatedAt === undefined ? 0 : 1, handles: [previousHandle], whose: [budgetKeyOf(previous), replacing?.budgetKey] })
  const person = personOf(session)
  const samePerson = person !== undefined && previousPerson?.tenant === person.tenant && previousPerson.userId === person.userId
  if (previousPerson !== undefined && previousHandle !== undefined && !samePerson) await parts.forget(previousPerson, previousHandle)
  const handle = newSessionHandle()
  const sid = await held.save({ ...session, handle, signInDevice: device, signInNetwork: network })
  if (sid === undefined) return
  await afterSave?.(sid, { sid: previousSid, live: previous.authenticatedAt !== undefined })
  if (person === undefined) return
  try {
    const ended = await parts.recordSignIn(person, handle, { sid, grantId: session.grantId, createdAt: session.authenticatedAt, device, network }, samePerson ? previousHandle : undefined)
    await parts.ended('over_cap', ended)
  } catch (error) {
    // Not indexed, not kept: a session nobody could list or end from elsewhere.
    await held.destroy().catch(() => {})
    throw error
  }
}
