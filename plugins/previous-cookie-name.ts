// The session cookie was __Host-<name> before 0.2.0 and is __Host-Http-<name> since. During a
// rolling upgrade from 0.1.0 (ROLLING_UPGRADE_FROM_0_1=on, for the rollout only) replicas of both
// versions serve one browser, so 0.2.0 reads the old name and writes it beside the new one:
// - reading: the old name when the new one is missing, or when the two differ (0.2.0 always
//   writes them equal, so a difference means a 0.1.0 replica wrote last: a sign-in it completed);
// - writing: whenever 0.2.0 sets or clears the session cookie, the old name too, SameSite=Lax as
//   0.1.0 set it, so a 0.1.0 callback (a navigation the media service starts) still carries it.
// Off (the default, and always once every replica runs 0.2.0) the old name means nothing: a page's
// script can set a __Host- cookie, and only a __Host-Http- one is the server's own.
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** Requests whose session came under the previous name: answered with today's too. */
const renamed = new WeakSet<FastifyRequest>()

export function cameUnderPreviousName (request: FastifyRequest): boolean {
  return renamed.has(request)
}

/** Reads the previous name: its hook must come between @fastify/cookie's and @fastify/session's (plugins/session.ts). */
export function readPreviousCookieName (app: FastifyInstance, cookieName: string, previousName: string): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const previous = request.cookies[previousName]
    if (previous !== undefined && request.cookies[cookieName] !== previous) {
      request.cookies[cookieName] = previous
      renamed.add(request)
    }
    done()
  })
}

/** Writes the previous name: its hook must come after @fastify/session's own onSend, which sets the cookie. */
export function writePreviousCookieName (app: FastifyInstance, cookieName: string, previousName: string): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const header = reply.getHeader('set-cookie')
    const cookies = header === undefined ? [] : Array.isArray(header) ? header.map(String) : [String(header)]
    const ours = cookies.filter((cookie) => cookie.startsWith(`${cookieName}=`))
    const asBefore = (cookie: string): string => `${previousName}${cookie.slice(cookieName.length)}`.replace(/; SameSite=Strict/i, '; SameSite=Lax')
    // Fastify adds Set-Cookie values to those already there.
    if (ours.length > 0) reply.header('set-cookie', ours.map(asBefore))
    done(null, payload)
  })
}
