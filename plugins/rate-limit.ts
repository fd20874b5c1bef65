// Rate limits on @fastify/rate-limit, one fixed one-minute window per key: sign-in and callback,
// and the media service's webhooks, per client address; registrations, finishes, relayed calls
// (/api/...), the session list (/auth/sessions) and live channels opened (/events) per signed-in
// user.
//
// Per-user counters live in Redis when REDIS_URL is set (the store's own connection), so every
// replica counts together; there are only as many as there are people signed in. Per-address
// counters always live in this process, in a bounded LRU: they are written for anyone on the
// internet, and a flood from tens of thousands of addresses must not take Redis memory that
// signed-in users need (at maxmemory with noeviction Redis refuses their refresh locks and grant
// writes). Behind N replicas an address may start up to N times the limit; the limit is there
// against one client hammering sign-ins, and a wide flood costs media-bff only CPU, since starting
// a sign-in writes nothing to any store (src/sign-in/login-transactions.ts).
// A route opts in by naming its limit in its config (`config: { limit: 'register' }`), and one
// hook, attached to that route alone (plugins/route-guards.ts), applies it (the plugin itself is
// registered with global off).
//
// Over the limit the answer is the contract's 429: the limiter throws an AppError, which
// plugins/errors.ts turns into { error: 'rate_limited', message } with Retry-After. The plugin's
// own X-RateLimit-* headers are off: the contract does not promise them and they would tell a
// flood exactly how much budget is left.
//
// A counter the store cannot keep (Redis down, or at maxmemory) lets the request through
// (skipOnError): the route then meets the same store and reports the outage itself, as a 503.
import fp from 'fastify-plugin'
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../src/errors.js'
import { guardRoute } from './route-guards.js'

/** The limits a route may name: per client address, or per signed-in person. */
export type LimitName = 'login' | 'webhooks' | 'register' | 'finish' | 'api' | 'sessions' | 'events'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The rate limit this route counts against (plugins/rate-limit.ts). */
    limit?: LimitName
  }
}

const WINDOW_MS = 60_000
/** In memory, counters kept per limiter; beyond it the least recently used are forgotten. */
const MEMORY_COUNTERS = 10_000
/**
 * One IPv6 subscriber usually holds a whole /64 and can pick any address in it, so it counts as
 * one client; IPv4 (and IPv4-mapped IPv6) addresses count one by one.
 */
const IPV6_CLIENT_PREFIX = 64

const off = { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false } as const

const pluginOptions = { global: false, skipOnError: true, addHeaders: { ...off, 'retry-after': false }, addHeadersOnExceeding: off }

export default fp(async (app) => {
  const { rateLimit, redisKeyPrefix } = app.config
  // The per-address limiter comes from a registration of its own, in memory, in a child context
  // (registered first: the plugin decorates `rateLimit` only where none exists yet).
  let perAddress: FastifyInstance['rateLimit'] | undefined
  await app.register(async (scope) => {
    await scope.register(fastifyRateLimit, pluginOptions)
    perAddress = scope.rateLimit
  })
  await app.register(fastifyRateLimit, {
    ...pluginOptions,
    ...(app.stores.redis === undefined ? {} : { redis: app.stores.redis, nameSpace: `${redisKeyPrefix}rate:` })
  })
  if (app.stores.redis !== undefined) {
    // The counters go straight to the client, which refuses commands until its first connection
    // (no offline queue): wait for it, within the store's own deadline, so that the first
    // requests are counted too. Redis down at start delays readiness by that deadline, no more.
    app.addHook('onReady', async () => { await app.stores.ping().catch(() => {}) })
  }

  /**
   * A limiter keyed by `keyOf`; a request without a key (no session yet) is not counted, and the
   * route answers it on its own (401). The limiter's name leads the key: the plugin keys every
   * app.rateLimit() limiter under the same Redis prefix, whatever route it guards.
   */
  const limiter = (name: string, max: number, keyOf: (request: FastifyRequest) => string | undefined, rateLimiter = app.rateLimit) => rateLimiter({
    max,
    timeWindow: WINDOW_MS,
    cache: MEMORY_COUNTERS,
    keyGenerator: (request) => `${name}:${keyOf(request) ?? ''}`,
    allowList: (request) => keyOf(request) === undefined,
    errorResponseBuilder: (_request, context) => new AppError('rate_limited', 'Too many requests; wait a moment and try again.', {
      retryAfter: Math.max(1, Math.ceil(context.ttl / 1000))
    })
  })
  // The person, not the sign-in: signing in again (or in a second browser) must not buy a new
  // budget (src/sessions/signed-in.ts, budgetKey).
  const signedInPerson = (request: FastifyRequest): string | undefined => request.signedIn?.budgetKey
  const address = (request: FastifyRequest): string => clientAddress(request.ip)

  if (perAddress === undefined) throw new Error('the per-address rate limiter did not register')
  const limits: Record<LimitName, ReturnType<typeof limiter>> = {
    login: limiter('auth', rateLimit.loginPerMinute, address, perAddress),
    webhooks: limiter('webhooks', app.config.webhooks.perMinute, address, perAddress),
    register: limiter('register', rateLimit.registerPerMinute, signedInPerson),
    finish: limiter('finish', rateLimit.finishPerMinute, signedInPerson),
    api: limiter('api', rateLimit.apiPerMinute, signedInPerson),
    sessions: limiter('sessions', rateLimit.sessionsPerMinute, signedInPerson),
    events: limiter('events', rateLimit.eventsPerMinute, signedInPerson)
  }
  // onRequest, after the session's own hooks (global, so earlier): who is signed in is known, and
  // nothing is read or parsed for a request over its limit.
  app.addHook('onRoute', (route) => {
    const name = route.config?.limit
    if (name === undefined) return
    // Not in the table: left unhandled, so plugins/route-guards.ts stops the start naming it.
    if (!Object.hasOwn(limits, name)) return
    const limit = limits[name]
    guardRoute(route, 'limit', 'onRequest', (request, reply, done) => { limit.call(app, request, reply).then(() => { done() }, done) })
  })
}, { name: 'rate-limit', dependencies: ['config', 'stores', 'session'] })

/** The client as the limits count it: an IPv6 address stands for its /64. */
export function clientAddress (ip: string): string {
  return normalizeIP(ip, IPV6_CLIENT_PREFIX)
}
