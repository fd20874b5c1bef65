// Rate limits on @fastify/rate-limit, one fixed one-minute window per key: sign-in and callback,
// and the media service's webhooks, per client address; registrations, finishes, relayed calls
// (/api/...), the session list (/auth/sessions) and live channels opened (/events) per signed-in
// user.
//
// Per-person counters are counted with the session, in the same exchange with the store
// (src/sessions/session-core.ts): in Redis when REDIS_URL is set, so every replica counts
// together, beside the person's epoch (one hash slot); there are only as many as there are people
// signed in. Per-address counters (@fastify/rate-limit) always live in this process, in a bounded
// LRU: they are written for anyone on the internet, and a flood from tens of thousands of
// addresses must not take Redis memory that signed-in users need (at maxmemory with noeviction
// Redis refuses their refresh locks and grant writes). Behind N replicas an address may start up
// to N times the limit; the limit is there against one client hammering sign-ins, and a wide flood
// costs media-bff only CPU, since starting a sign-in writes nothing to any store
// (src/sign-in/login-transactions.ts).
// A route opts in by naming its limit in its config (`config: { limit: 'register' }`), and one
// hook, attached to that route alone (plugins/route-guards.ts), applies it (the plugin itself is
// registered with global off).
//
// Over the limit the answer is the contract's 429: the limiter throws an AppError, which
// plugins/errors.ts turns into { error: 'rate_limited', message } with Retry-After. The plugin's
// own X-RateLimit-* headers are off: the contract does not promise them and they would tell a
// flood exactly how much budget is left.
//
// A counter the store cannot keep (Redis at maxmemory) lets the request through; with Redis down
// the session cannot be opened either, and the request is answered 503 before any count.
import fp from 'fastify-plugin'
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../src/errors.js'
import { LIMIT_WINDOW_MS, PERSON_LIMITS, type LimitName } from '../src/rate-limits.js'
import { guardRoute } from './route-guards.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The rate limit this route counts against (plugins/rate-limit.ts). */
    limit?: LimitName
  }
}

/** In memory, counters kept per limiter; beyond it the least recently used are forgotten. */
const MEMORY_COUNTERS = 10_000
/**
 * One IPv6 subscriber usually holds a whole /64 and can pick any address in it, so it counts as
 * one client; IPv4 (and IPv4-mapped IPv6) addresses count one by one.
 */
const IPV6_CLIENT_PREFIX = 64

const off = { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false } as const

const pluginOptions = { global: false, addHeaders: { ...off, 'retry-after': false }, addHeadersOnExceeding: off }

type Guard = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void

export default fp(async (app) => {
  const { rateLimit } = app.config
  await app.register(fastifyRateLimit, pluginOptions)
  const tooMany = (resetInMs: number): AppError => new AppError('rate_limited', 'Too many requests; wait a moment and try again.', {
    retryAfter: Math.max(1, Math.ceil(resetInMs / 1000))
  })

  /** A limiter per client address, in memory; the limiter's name leads the key. */
  const perAddress = (name: string, max: number): Guard => {
    const limit = app.rateLimit({
      max,
      timeWindow: LIMIT_WINDOW_MS,
      cache: MEMORY_COUNTERS,
      keyGenerator: (request) => `${name}:${clientAddress(request.ip)}`,
      errorResponseBuilder: (_request, context) => tooMany(context.ttl)
    })
    return (request, reply, done) => { limit.call(app, request, reply).then(() => { done() }, done) }
  }
  /**
   * A limit per signed-in person, counted with the session (request.personCount). A request
   * nobody is signed in with is not counted, and the route answers it on its own (401). The
   * person, not the sign-in: signing in again (or in a second browser) must not buy a new budget
   * (src/sessions/signed-in.ts, budgetKey).
   */
  const perPerson = (max: number): Guard => (request, _reply, done) => {
    const counted = request.signedIn === undefined ? undefined : request.personCount
    done(counted !== undefined && counted.count > max ? tooMany(counted.resetInMs) : undefined)
  }

  const maxima: Record<LimitName, number> = {
    login: rateLimit.loginPerMinute,
    webhooks: app.config.webhooks.perMinute,
    register: rateLimit.registerPerMinute,
    finish: rateLimit.finishPerMinute,
    api: rateLimit.apiPerMinute,
    sessions: rateLimit.sessionsPerMinute,
    events: rateLimit.eventsPerMinute
  }
  // Whom each counts is said once, in src/rate-limits.ts (the session core counts those per person).
  const limits = Object.fromEntries(Object.entries(maxima).map(([name, max]) => [name, PERSON_LIMITS.has(name) ? perPerson(max) : perAddress(name, max)])) as Record<LimitName, Guard>
  // onRequest, after the session's own hooks (global, so earlier): who is signed in is known, and
  // nothing is read or parsed for a request over its limit.
  app.addHook('onRoute', (route) => {
    const name = route.config?.limit
    if (name === undefined) return
    // Not in the table: left unhandled, so plugins/route-guards.ts stops the start naming it.
    if (!Object.hasOwn(limits, name)) return
    guardRoute(route, 'limit', 'onRequest', limits[name])
  })
}, { name: 'rate-limit', dependencies: ['config', 'session'] })

/** The client as the limits count it: an IPv6 address stands for its /64. */
export function clientAddress (ip: string): string {
  return normalizeIP(ip, IPV6_CLIENT_PREFIX)
}
