// The one gate every request passes, in one order (src/gate/admission.ts says why):
//   arrival   its request id on the answer; refused while the instance closes;
//   proof     what its route's caller must show (the custom header and an allowed Origin, the
//             operators' bearer), and its count against a limit per client address;
//   session   (plugins/session.ts places these two around @fastify/session's own restoring)
//             open: the session, in one exchange with its count against its person's limit;
//             admit: who is signed in, what the arrival does to the session (end an expired one),
//             the scopes the grant must hold, and only then the touch that keeps it alive.
// Each route's admission is worked out once as it is registered, from its `config`; a
// declaration that does not hold together, or a route that needs the session steps where none
// were placed, stops the start. A request the gate refuses changes nothing of anyone's.
import fp from 'fastify-plugin'
import fastifyCors from '@fastify/cors'
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, loginRequired, loginUrl } from '../src/errors.js'
import { admissionOf, type Admission, type Declaration, type OperatorToken } from '../src/gate/admission.js'
import { pageProofRefusal, unroutedNeedsProof } from '../src/gate/page-proof.js'
import { bearerTokenCheck } from '../src/bearer-token.js'
import { REQUEST_ID_HEADER } from '../src/request-id.js'
import { LIMIT_WINDOW_MS, type LimitName } from '../src/rate-limits.js'
import { checkScopes, scopeRefusal } from '../src/oauth/scope-check.js'
import { safeReturnPath } from '../src/sign-in/return-to.js'
import { recentSignInRefusal } from '../src/sign-in/recent-sign-in.js'
import { withAccessToken } from '../src/grants/with-access-token.js'
import { GrantEndedError, GrantMissingError } from '../src/grants/grant-errors.js'
import type { Access } from '../src/grants/access.js'
import type { Sessions } from '../src/sessions/sessions.js'
import type { StoredGrant } from '../src/grants/grant-store.js'
import type { Ending } from '../src/sessions/session-endings.js'
import { anomalyRefusal, type Vouch } from '../src/sessions/vouch.js'
import type { SignedIn } from '../src/sessions/signed-in.js'
import { createBoundedMemo } from '../src/bounded-memo.js'

declare module 'fastify' {
  // What a route declares is the admission's Declaration (src/gate/admission.ts), said there once.
  interface FastifyContextConfig extends Declaration {
    /** Worked out by the gate from the declaration as the route is registered. */
    admission?: Admission
  }
  interface FastifyInstance {
    /**
     * Whether this request carries the METRICS_TOKEN (never when it is unset): for routes open to
     * all that tell operators more (why /readyz is not ready).
     */
    isOperator: (request: FastifyRequest) => boolean
    /**
     * What a sign-in may ask for (`scope=` on /auth/login): OAUTH_SCOPES and every scope a route
     * declares, gathered as the routes are registered: the one list of the scopes media-bff
     * understands.
     */
    requestableScopes: ReadonlySet<string>
  }
  interface FastifyRequest {
    /** Set once the route's `scopes` are checked; see Access. */
    access: Access | undefined
  }
}

/** In memory, counters kept per address limiter; beyond it the least recently used are forgotten. */
const MEMORY_COUNTERS = 10_000
/** One IPv6 subscriber usually holds a whole /64 and can pick any address in it: one client. */
const IPV6_CLIENT_PREFIX = 64
const CLOSING_RETRY_AFTER_S = 2

/** The client as the limits count it: an IPv6 address stands for its /64. */
export function clientAddress (ip: string): string {
  return normalizeIP(ip, IPV6_CLIENT_PREFIX)
}

export default fp(async (app) => {
  const { config } = app
  const allowedOrigins = new Set(config.allowedOrigins)
  const maxima: Record<LimitName, number> = {
    login: config.rateLimit.loginPerMinute,
    webhooks: config.webhooks.perMinute,
    register: config.rateLimit.registerPerMinute,
    finish: config.rateLimit.finishPerMinute,
    api: config.rateLimit.apiPerMinute,
    sessions: config.rateLimit.sessionsPerMinute,
    events: config.rateLimit.eventsPerMinute
  }
  const bearers: Record<OperatorToken, ((authorization: string | undefined) => boolean) | undefined> = {
    metrics: config.metricsToken === undefined ? undefined : bearerTokenCheck(config.metricsToken),
    lever: config.operatorToken === undefined ? undefined : bearerTokenCheck(config.operatorToken)
  }
  app.decorate('isOperator', (request: FastifyRequest) => bearers.metrics?.(request.headers.authorization) === true)

  // CORS for front-ends on another origin of ALLOWED_ORIGINS: credentials, only our methods and
  // headers. Its hook comes before the proof, so a refusal an allowed page gets is one it can read.
  await app.register(fastifyCors, {
    origin: (origin, callback) => { callback(null, origin !== undefined && allowedOrigins.has(origin)) },
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['content-type', 'x-csrf', 'if-none-match', 'last-event-id'],
    // Not a CORS-safelisted response header: a page on another origin must read how long a 429 or
    // a 503 asks it to wait (the browser module honours it).
    exposedHeaders: ['retry-after'],
    maxAge: 600,
    strictPreflight: true
  })

  // Per address, in this process's memory only: anyone on the internet is counted here, and a
  // flood from many addresses must not take Redis memory that signed-in people need. Over the
  // limit: the contract's 429 (the plugin's own X-RateLimit-* headers are off: they would tell a
  // flood exactly how much budget is left).
  const off = { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false } as const
  await app.register(fastifyRateLimit, { global: false, addHeaders: { ...off, 'retry-after': false }, addHeadersOnExceeding: off })
  const addressLimiters = new Map<LimitName, (request: FastifyRequest, reply: FastifyReply) => Promise<void>>()
  const addressLimiter = (name: LimitName): (request: FastifyRequest, reply: FastifyReply) => Promise<void> => {
    let limiter = addressLimiters.get(name)
    if (limiter === undefined) {
      const handler = app.rateLimit({
        max: maxima[name],
        timeWindow: LIMIT_WINDOW_MS,
        cache: MEMORY_COUNTERS,
        keyGenerator: (request) => `${name}:${clientAddress(request.ip)}`,
        errorResponseBuilder: (_request, context) => tooMany(context.ttl)
      })
      limiter = async (request, reply) => { await handler.call(app, request, reply) }
      addressLimiters.set(name, limiter)
    }
    return limiter
  }

  const requestable = new Set(config.oauth.scopes)
  app.decorate('requestableScopes', requestable)
  const limits = new Set(Object.keys(maxima))
  let sessionRoutes = 0
  app.addHook('onRoute', (route) => {
    const declared = route.config ?? {}
    // A CORS preflight never carries the headers of the request it asks about.
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const preflight = methods.every((method) => method === 'OPTIONS')
    const admission = admissionOf(`${methods.join(',')} ${route.url}`, preflight && declared.caller === undefined ? { ...declared, caller: 'anyone' } : declared, limits)
    if (admission.operatorToken === 'lever' && bearers.lever === undefined) throw new Error(`${route.url} is an operators' lever, which exists only with OPERATOR_TOKEN`)
    for (const scope of admission.scopes ?? []) requestable.add(scope)
    if (admission.usesSession) sessionRoutes++
    route.config = { ...declared, admission }
  })

  let closing = false
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    if (closing) {
      reply.header('connection', 'close')
      done(new AppError('unavailable', 'media-bff is restarting; try again in a moment.', { retryAfter: CLOSING_RETRY_AFTER_S }))
      return
    }
    const { admission } = request.routeOptions.config
    if (admission === undefined) {
      // No route (a 404), or the CORS preflight's own.
      done(request.is404 && unroutedNeedsProof(request.method) ? pageProofRefusal(request.headers, allowedOrigins) : undefined)
      return
    }
    if (admission.proof === 'custom-header') {
      const refusal = pageProofRefusal(request.headers, allowedOrigins)
      if (refusal !== undefined) {
        done(refusal)
        return
      }
    } else if (admission.proof === 'bearer') {
      const allowed = admission.operatorToken === undefined ? undefined : bearers[admission.operatorToken]
      // No METRICS_TOKEN: what operators read is open (the lever's routes do not exist then).
      if (allowed !== undefined && !allowed(request.headers.authorization)) {
        // Answered as a missing route is: nobody else can tell the route is there.
        reply.callNotFound()
        return
      }
    }
    if (admission.addressLimit === undefined) {
      done()
      return
    }
    addressLimiter(admission.addressLimit)(request, reply).then(() => { done() }, done)
  })

  app.addHook('onReady', async () => {
    if (sessionRoutes > 0 && !app.hasDecorator('sessions')) throw new Error(`media-bff cannot start: ${sessionRoutes} route(s) use the session, and no session plugin placed the gate's session steps (plugins/session.ts)`)
  })

  app.decorateRequest('access', undefined)
}, { name: 'gate', dependencies: ['config'] })

function tooMany (resetInMs: number): AppError {
  return new AppError('rate_limited', 'Too many requests; wait a moment and try again.', { retryAfter: Math.max(1, Math.ceil(resetInMs / 1000)) })
}

type Step = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void

export interface SessionSteps {
  /** Before @fastify/session restores the session: opens it, with its count. */
  open: Step
  /** After: who is signed in, the arrival, the scopes, the touch. */
  admit: Step
}

export interface SessionStepParts {
  sessions: Sessions<StoredGrant>
  /** The session id a request's cookie names, when its signature holds. */
  sidOf: (request: FastifyRequest) => string | undefined
  /** Ends the request's session (sign-out and the like), cookie cleared. */
  end: (request: FastifyRequest, reply: FastifyReply, ending: Ending) => Promise<void>
  /** Marks the session touched: its idle timeout moves on, saved as the answer goes out. */
  touch: (request: FastifyRequest) => void
  /** Whether the cookie must be sent again (signed with an older secret, under an earlier name). */
  cookieToRenew: (request: FastifyRequest) => boolean
  /** Keeps the session's cookie from the request: @fastify/session then neither reads nor answers it. */
  hideCookie: (request: FastifyRequest) => void
  /** Whether a page's signed-in call may act as its session (src/sessions/vouch.ts). */
  vouch: (request: FastifyRequest, signedIn: SignedIn) => Vouch
  /** Whether the request shows its session's binding to a key, if it has one (src/device-binding/). */
  showsBinding: (request: FastifyRequest, signedIn: SignedIn) => boolean
}

/** Anomalies recorded per instance (a session and the place it was seen from, once each). */
const ANOMALIES_REMEMBERED = 10_000

/** The gate's two session steps, for plugins/session.ts to place around @fastify/session. */
export function sessionSteps (app: FastifyInstance, { sessions, sidOf, end, touch, cookieToRenew, hideCookie, vouch, showsBinding }: SessionStepParts): SessionSteps {
  const { config } = app
  const personMaxima: Partial<Record<LimitName, number>> = {
    register: config.rateLimit.registerPerMinute,
    finish: config.rateLimit.finishPerMinute,
    api: config.rateLimit.apiPerMinute,
    sessions: config.rateLimit.sessionsPerMinute,
    events: config.rateLimit.eventsPerMinute
  }

  const open: Step = (request, _reply, done) => {
    const { admission } = request.routeOptions.config
    if (admission?.usesSession !== true) {
      // A call that opens no session (an asset, a probe, a server's, a 404) reads none from the
      // store, and its answer leaves the browser's cookie as it is: one signed with an older
      // secret is renewed by the next page's call, not cleared by this one.
      hideCookie(request)
      done()
      return
    }
    const sid = sidOf(request)
    if (sid === undefined) {
      done()
      return
    }
    const limit = admission?.personLimit
    sessions.open(sid, limit === undefined ? undefined : { limit, windowMs: LIMIT_WINDOW_MS }).then((opened) => {
      const { counted, record } = opened
      const max = limit === undefined ? undefined : personMaxima[limit]
      // Only a live signed-in session is held to its person's limit; the route answers anyone else.
      const signedIn = record === undefined ? undefined : sessions.signedIn(sid, record)
      // A navigation (a sign-in, its callback) with a copy of a bound session's cookie is one
      // without a session: it replaces, keeps and ends nothing of that session's.
      if (signedIn !== undefined && admission?.caller === 'navigation' && !showsBinding(request, signedIn)) hideCookie(request)
      done(counted !== undefined && max !== undefined && counted.count > max && signedIn !== undefined && signedIn.endsAt >= app.clock() ? tooMany(counted.resetInMs) : undefined)
    }, done)
  }

  /** Ends the sign-in whose grant is gone; the store failing too changes nothing for the answer. */
  const endedWith = async (request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<never> => {
    await end(request, reply, 'grant_gone').catch(() => {})
    throw error
  }

  /** Checks the signed-in session's grant against the scopes, and gives the request its access. */
  const giveAccess = async (request: FastifyRequest, reply: FastifyReply, required: readonly string[]): Promise<void> => {
    const { signedIn } = request
    if (signedIn === undefined) throw loginRequired(config.basePath)
    const stored = await sessions.grantOf(signedIn)
    const tenant = stored === undefined ? undefined : config.tenants.get(stored.grant.tenant)
    // The grant ended (elsewhere, or it expired), or its tenant left the configuration.
    if (stored === undefined || tenant === undefined) return await endedWith(request, reply, loginRequired(config.basePath))
    const verdict = checkScopes(stored.grant.scopes, required, signedIn.deniedScopes)
    if (!verdict.ok) {
      throw scopeRefusal(verdict, (scopes) => `${loginUrl(config.basePath)}?${new URLSearchParams({ scope: scopes.join(' '), return_to: refererPath(request) }).toString()}`)
    }
    request.access = {
      signedIn,
      grant: stored.grant,
      tenant,
      withToken: async (call) => await withAccessToken(app.tokens, signedIn.grantId, call, stored, request.id).catch(async (error: unknown) => {
        if (error instanceof GrantEndedError || error instanceof GrantMissingError) return await endedWith(request, reply, error)
        throw error
      })
    }
  }

  const anomaliesSeen = createBoundedMemo<true>(ANOMALIES_REMEMBERED)
  /**
   * A page's call the session does not vouch for (vouch.ts): answered as signed out (a bound
   * session's call without its cookie), or as SESSION_ANOMALY says; true when it was answered.
   */
  const unvouched = (request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn, scopes: readonly string[] | undefined, done: (error?: Error) => void): boolean => {
    const vouched = vouch(request, signedIn)
    if (vouched.kind === 'vouched') return false
    const who = { tenant: signedIn.tenant, person: signedIn.user.id, session: signedIn.handle }
    if (vouched.kind === 'unbound') {
      app.audit('device_binding_refused', { ...who, reason: vouched.fault }, request)
      done(scopes === undefined ? undefined : loginRequired(config.basePath))
      return true
    }
    const { changed, action, now } = vouched
    const seen = `${signedIn.handle}\n${now.device}\n${now.network}`
    if (anomaliesSeen.get(seen) === undefined) {
      anomaliesSeen.set(seen, true)
      app.audit('session_anomaly', { ...who, reason: changed.join(','), device: now.device, network: now.network, signed_in_device: signedIn.signedInFrom?.device, signed_in_network: signedIn.signedInFrom?.network, action }, request)
    }
    if (action === 'end') {
      end(request, reply, 'anomaly').then(() => { done(scopes === undefined ? undefined : loginRequired(config.basePath)) }, done)
      return true
    }
    if (action === 'reauth' && scopes !== undefined) {
      done(anomalyRefusal(signInAgainUrl(request)))
      return true
    }
    return false
  }

  const admit: Step = (request, reply, done) => {
    const { admission } = request.routeOptions.config
    const session = request.session
    if (admission?.usesSession !== true || session?.authenticatedAt === undefined) {
      if (admission?.scopes === undefined) done()
      else done(loginRequired(config.basePath))
      return
    }
    const signedIn = sessions.signedIn(session.sessionId, session)
    const arrival = signedIn === undefined
      ? undefined
      : sessions.arrive(signedIn, { isActivity: admission.isActivity, replacesSession: admission.replacesSession, cookieToRenew: cookieToRenew(request) })
    if (arrival === 'end') {
      end(request, reply, 'expired').then(() => { done(admission.scopes === undefined ? undefined : loginRequired(config.basePath)) }, done)
      return
    }
    if (signedIn !== undefined && arrival !== 'replace' && admission.vouched && unvouched(request, reply, signedIn, admission.scopes, done)) return
    if (arrival !== 'replace') request.signedIn = signedIn
    // Touched only once the request is admitted: a refused one keeps nothing alive.
    const touchIfAdmitted = (): void => { if (arrival === 'touch') touch(request) }
    if (admission.scopes === undefined) {
      touchIfAdmitted()
      done()
      return
    }
    giveAccess(request, reply, admission.scopes).then(() => {
      const refusal = admission.recentSignIn ? notRecent(request) : undefined
      if (refusal !== undefined) {
        done(refusal)
        return
      }
      touchIfAdmitted()
      done()
    }, done)
  }

  return { open, admit }
}

/**
 * The refusal of a risky act (config `recentSignIn`, or a route's own risky case) when the request's
 * sign-in is older than RECENT_SIGN_IN; undefined when it is recent (or nobody is signed in).
 */
export function notRecent (request: FastifyRequest): AppError | undefined {
  const { signedIn, server } = request
  if (signedIn === undefined) return undefined
  return recentSignInRefusal(signedIn.authenticatedAt, server.clock(), server.config.session.recentSignInMs, signInAgainUrl(request))
}

/** Where a person signs in afresh (the service asked for a new login) and comes back to the page. */
function signInAgainUrl (request: FastifyRequest): string {
  return `${loginUrl(request.server.config.basePath)}?${new URLSearchParams({ prompt: 'login', return_to: refererPath(request) }).toString()}`
}

/** The page that made the call, when it is ours, so re-authorization lands back on it. */
function refererPath (request: FastifyRequest): string {
  const referer = request.headers.referer
  if (referer === undefined) return '/'
  try {
    const url = new URL(referer)
    if (url.origin !== request.server.config.publicOrigin) return '/'
    return safeReturnPath(`${url.pathname}${url.search}`)
  } catch {
    return '/'
  }
}
