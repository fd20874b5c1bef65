// The session cookie was __Host-<name> before 0.2.0 and is __Host-Http-<name> since. During a
// rolling upgrade from 0.1.0 (ROLLING_UPGRADE_FROM_0_1, given the time it ends by) replicas of both
// versions serve one browser, so this version reads the old name and writes it beside the new one.
// A page's script can set a __Host- cookie (only a __Host-Http- one is the server's own), so the
// old name is believed as little as the upgrade needs:
// - reading: only when today's name is missing or names no session (a sign-in a 0.1.0 replica
//   completed wrote the old name alone, and replaced the session both named): it never wins over
//   a session today's name holds. And only for a session 0.1.0 made (record format 0:
//   src/store/record-format.ts), never for one a later version made, so a planted cookie cannot
//   sign a browser into someone's current session;
// - writing: whenever this version sets or clears the session cookie, the old name too,
//   SameSite=Lax as 0.1.0 set it, so a 0.1.0 callback (a navigation the media service starts)
//   still carries it. A session that came under the old name is never sent under today's: that
//   would make a cookie any page's script can plant into the one only a server sets. It stays
//   under the old name until the upgrade ends, and its person signs in again then.
// From the time given on, the old name means nothing again, without a restart.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { UnsignResult } from '@fastify/cookie'
import type { RollingUpgrade } from '../src/config/rolling-upgrade.js'
import { formatOf } from '../src/store/record-format.js'

/** Requests whose session came under the previous name: answered with today's too. */
const renamed = new WeakSet<FastifyRequest>()

export function cameUnderPreviousName (request: FastifyRequest): boolean {
  return renamed.has(request)
}

export interface PreviousNameParts {
  cookieName: string
  upgrade: RollingUpgrade
  signer: { unsign: (value: string) => UnsignResult }
  /** A session's stored record, as @fastify/session would load it. */
  load: (sessionId: string) => Promise<unknown>
}

/** Reads the previous name: its hook must come between @fastify/cookie's and @fastify/session's (plugins/session.ts). */
export function readPreviousCookieName (app: FastifyInstance, { cookieName, upgrade, signer, load }: PreviousNameParts): void {
  const { previousCookieName, until } = upgrade
  /** The record a signed cookie's session has, or undefined (forged, unknown, ended). */
  const recordOf = async (cookie: string | undefined): Promise<unknown> => {
    const unsigned = cookie === undefined ? undefined : signer.unsign(cookie)
    return unsigned?.valid === true && unsigned.value !== null ? await load(unsigned.value) ?? undefined : undefined
  }
  app.addHook('onRequest', (request, _reply, done) => {
    const previous = request.cookies[previousCookieName]
    const current = request.cookies[cookieName]
    // This version writes both names alike: only a difference has anything to decide.
    if (previous === undefined || previous === current || app.clock() >= until) {
      done()
      return
    }
    (async () => {
      if (await recordOf(current) !== undefined) return
      const record = await recordOf(previous)
      if (record === undefined || formatOf(record as { format?: unknown }) !== 0) return
      request.cookies[cookieName] = previous
      renamed.add(request)
    })().then(() => { done() }, done)
  })
}

/** Writes the previous name: its hook must come after @fastify/session's own onSend, which sets the cookie. */
export function writePreviousCookieName (app: FastifyInstance, cookieName: string, { previousCookieName, until }: RollingUpgrade): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (app.clock() >= until) {
      done(null, payload)
      return
    }
    const header = reply.getHeader('set-cookie')
    const cookies = header === undefined ? [] : Array.isArray(header) ? header.map(String) : [String(header)]
    const ours = cookies.filter((cookie) => cookie.startsWith(`${cookieName}=`))
    const asBefore = (cookie: string): string => `${previousCookieName}${cookie.slice(cookieName.length)}`.replace(/; SameSite=Strict/i, '; SameSite=Lax')
    if (ours.length > 0 && cameUnderPreviousName(request)) {
      // Under the old name only; today's may only be cleared. Set anew: reply.header adds.
      const cleared = (cookie: string): boolean => cookie.startsWith(`${cookieName}=;`)
      const kept = cookies.filter((cookie) => !cookie.startsWith(`${cookieName}=`) || cleared(cookie))
      reply.removeHeader('set-cookie')
      reply.header('set-cookie', [...kept, ...ours.map(asBefore)])
    } else if (ours.length > 0) {
      // Fastify adds Set-Cookie values to those already there.
      reply.header('set-cookie', ours.map(asBefore))
    }
    done(null, payload)
  })
}
