// The session a sign-in began in, found again at its callback. The session cookie is
// SameSite=Strict, so the callback (a navigation the media service starts) arrives without it;
// the sign-in's sealed Lax cookie names the session instead (LoginTransaction.previousSid). That
// session may have been replaced meanwhile by another tab's sign-in in the same browser: each
// replacement is remembered for LOGIN_TIMEOUT, and followed, so the later callback replaces the
// session the browser holds now and leaves none behind.
import type { FastifyInstance } from 'fastify'
import { liveUntil, signedInOf, type SessionRecord, type SignedIn } from '../src/sessions/signed-in.js'

/** Sign-ins one browser may have open at once bound the chain (LOGIN_MAX_PER_BROWSER is at most 3). */
const MAX_HOPS = 4
const key = (sid: string): string => `replaced-session:${sid}`

/** The live signed-in session `sid` names, or the one that replaced it (and so on); a store failure throws. */
export async function liveSessionFrom (app: FastifyInstance, sid: string | undefined): Promise<SignedIn | undefined> {
  let current = sid
  for (let hop = 0; current !== undefined && hop < MAX_HOPS; hop++) {
    const record = await app.sessionStore.load(current) as SessionRecord | null | undefined
    if (record !== undefined && record !== null) {
      return liveUntil(record, app.config.session, app.clock()) === undefined ? undefined : signedInOf(current, record, app.config.session)
    }
    current = await app.stores.signIns.get(key(current))
  }
  return undefined
}

/** Remembers that `replacedSids` were replaced by `sid`, for as long as a sign-in may take. */
export async function rememberReplaced (app: FastifyInstance, replacedSids: ReadonlyArray<string | undefined>, sid: string): Promise<void> {
  for (const replaced of new Set(replacedSids)) {
    if (replaced !== undefined && replaced !== sid) await app.stores.signIns.set(key(replaced), sid, app.config.session.loginTimeoutMs)
  }
}
