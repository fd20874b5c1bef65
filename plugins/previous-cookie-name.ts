// The session cookie was __Host-<name> before 0.2.0 and is __Host-Http-<name> since. While
// replicas of both versions run (a rolling upgrade), each must read the session whichever name
// the browser sent: so 0.2.0 reads the old name when the new one is missing, and writes (or
// clears) the old name beside the new one whenever it sets the session cookie, for 0.1.0 replicas
// to read. A release after 0.2.0 drops the writing (CHANGELOG.md), then the reading.
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** Requests whose session came under the previous name only: answered with today's too. */
const renamed = new WeakSet<FastifyRequest>()

export function cameUnderPreviousName (request: FastifyRequest): boolean {
  return renamed.has(request)
}

/** Reads the previous name: its hook must come between @fastify/cookie's and @fastify/session's (plugins/session.ts). */
export function readPreviousCookieName (app: FastifyInstance, cookieName: string, previousName: string): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const previous = request.cookies[previousName]
    if (previous !== undefined && request.cookies[cookieName] === undefined) {
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
    // Fastify adds Set-Cookie values to those already there.
    if (ours.length > 0) reply.header('set-cookie', ours.map((cookie) => `${previousName}${cookie.slice(cookieName.length)}`))
    done(null, payload)
  })
}
