// Server-side sessions: the browser holds one opaque, signed, HttpOnly cookie; everything else
// lives in the store. Idle and absolute timeouts are enforced here, server-side.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import { rememberingSigner } from './session-signer.js'
import { cameUnderPreviousName, readPreviousCookieName, writePreviousCookieName } from './previous-cookie-name.js'
import { liveSessionFrom, rememberReplaced } from './replaced-sessions.js'
import { signedInOf, type SessionRecord, type SignedIn, type StoredSession } from '../src/sessions/signed-in.js'
import { newSessionHandle } from '../src/sessions/session-index.js'
import { endSession, type EndSessionParts } from '../src/sessions/end-session.js'
import { beginSession, type HeldSession } from '../src/sessions/begin-session.js'
import { arrivalOf } from '../src/sessions/arrival.js'
import { describeDevice } from '../src/sessions/device.js'
import { sessionEndings, type Ending, type SessionEnded } from '../src/sessions/session-endings.js'
import { coarseNetwork } from '../src/sessions/network.js'
import type { SignedInSession } from '../src/sign-in/session-after-sign-in.js'
import type { StoredGrant } from '../src/grants/grant-store.js'
import { LIMIT_WINDOW_MS, PERSON_LIMITS } from '../src/rate-limits.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: a request to this route is not activity (it does not move the idle timeout on):
     * GET /auth/session, which tabs ask whenever they are looked at again.
     */
    touchesSession?: boolean
    /**
     * This route begins a new session in place of the request's (the sign-in callback): an
     * expired one is not ended as the request arrives, but replaced (plugins/session.ts).
     */
    replacesSession?: boolean
  }
  interface FastifyRequest {
    /**
     * Who is signed in with this request's session (src/sessions/signed-in.ts), worked out once
     * as the request arrives; undefined when nobody is (or the session just ended).
     */
    signedIn: SignedIn | undefined
    /** The session's grant as opened with it (src/sessions/session-core.ts); app.grantOf reads it. */
    sessionGrant: StoredGrant | undefined
    /** This request's count against its person's limit, taken with the session; undefined when not counted. */
    personCount: { count: number, resetInMs: number } | undefined
  }
  interface FastifyInstance {
    /**
     * "Stay signed in": resets the session's idle timeout (never its absolute one); request.signedIn
     * follows.
     */
    keepAlive: (request: FastifyRequest) => void
    /**
     * Ends the sign-in held by this request's session: grant deleted, session destroyed, cookie
     * cleared, and the ending announced and counted (`signed_out`, the default; `expired`;
     * `grant_gone`).
     */
    endSignIn: (request: FastifyRequest, reply: FastifyReply, ending?: 'signed_out' | 'expired' | 'grant_gone') => Promise<void>
    /**
     * The one way an ending is made known: the sessions' open pages told why on every instance,
     * and the ending counted (src/sessions/session-endings.ts). For sessions ended elsewhere than
     * in this request (the person's other sessions, an operator, the cap).
     */
    sessionsEnded: SessionEnded
    /**
     * Puts a completed sign-in into a new session: the id rotated (no fixation), the grant it
     * replaces deleted, and the session indexed under its person (in place of the one it
     * replaces). Nothing is kept if the store fails meanwhile.
     */
    beginSession: (request: FastifyRequest, signedIn: SignedInSession, replacing: SignedIn | undefined) => Promise<void>
    /**
     * The live signed-in session a sign-in began in (`sid`), or the one that replaced it since
     * (plugins/replaced-sessions.ts), or undefined: what the callback, arriving without the
     * SameSite=Strict cookie, replaces. A store failure throws.
     */
    signedInById: (sid: string | undefined) => Promise<SignedIn | undefined>
    /**
     * The grant of the request's signed-in session, as read with the session when it was, else
     * from the store; undefined when it is gone.
     */
    grantOf: (request: FastifyRequest) => Promise<StoredGrant | undefined>
  }
  // The stored session's fields, declared once (src/sessions/signed-in.ts).
  interface Session extends StoredSession {}
}

export default fp(async (app) => {
  const { session: settings } = app.config
  // Every cookie media-bff sets or clears carries these unless it says otherwise: so
  // @fastify/session's clearing of a cookie it cannot use (a forged or unknown id), which names
  // only the path, is Secure too, and a browser takes the clearing of a __Host- cookie.
  // SameSite=Strict (RFC 10017): no request another site starts carries the session, not even a
  // top-level navigation. Pages call media-bff with fetch from their own site, which carries it;
  // the sign-in's own cookies are Lax (routes/auth.ts), as the media service's redirect back must
  // carry them, and they name the session a sign-in replaces (LoginTransaction.previousSid).
  const cookieDefaults = { httpOnly: true, secure: settings.secureCookie, sameSite: 'strict' as const, path: '/' }
  await app.register(fastifyCookie, { parseOptions: cookieDefaults })
  const signer = rememberingSigner(new fastifyCookie.Signer(settings.secrets, 'sha256'))
  // Between the cookie parser's hook and @fastify/session's: the name before 0.2.0 is read and
  // written beside today's while a rolling upgrade runs both versions.
  const { rollingUpgrade } = settings
  if (rollingUpgrade !== undefined) readPreviousCookieName(app, { cookieName: settings.cookieName, upgrade: rollingUpgrade, signer, load: app.sessionStore.load })
  // @fastify/session restores the session from the store as every request arrives; the session
  // core opens it first (src/sessions/session-core.ts), in one exchange with the store for a
  // session this replica keeps, with the request's count against its person's rate limit, and
  // hands @fastify/session the record instead of a read. The record waits here for the very next
  // hook, @fastify/session's, which takes it out.
  const opened = new Map<string, SessionRecord | undefined>()
  app.decorateRequest('sessionGrant', undefined)
  app.decorateRequest('personCount', undefined)
  app.addHook('onRequest', (request, _reply, done) => {
    const cookie = request.cookies[settings.cookieName]
    const unsigned = cookie === undefined ? undefined : signer.unsign(cookie)
    // @fastify/session restores nothing for a request target outside the cookie's path `/` (an
    // absolute-form one, `GET http://host/...`): nothing is opened for it, so nothing waits here.
    if (unsigned?.valid !== true || unsigned.value === null || request.raw.url?.startsWith('/') !== true) {
      done()
      return
    }
    const sid = unsigned.value
    const limit = request.routeOptions.config.limit
    const counting = limit !== undefined && PERSON_LIMITS.has(limit) ? { limit, windowMs: LIMIT_WINDOW_MS } : undefined
    app.sessionCore.open(sid, counting).then((session) => {
      opened.set(sid, session.record)
      request.sessionGrant = session.grant
      request.personCount = session.counted
      done()
    }, done)
  })
  const store = app.sessionStore
  await app.register(fastifySession, {
    secret: signer,
    cookieName: settings.cookieName,
    saveUninitialized: false,
    // Saved when modified; the touch below keeps the store TTL rolling without a write per call.
    rolling: false,
    // No maxAge: a browser-session cookie; the server decides when the session ends.
    cookie: cookieDefaults,
    store: {
      ...store,
      get: (sid, callback) => {
        if (!opened.has(sid)) {
          store.get(sid, callback)
          return
        }
        const record = opened.get(sid)
        opened.delete(sid)
        process.nextTick(callback, null, record)
      }
    }
  })
  if (rollingUpgrade !== undefined) writePreviousCookieName(app, settings.cookieName, rollingUpgrade)

  app.decorate('sessionsEnded', sessionEndings({
    changed: app.sessionEpochs.changed,
    announce: (handles, reason) => { app.live.announceSessionsEnded(handles, reason) },
    count: (ending, live) => { app.metrics.sessionsEnded(ending, live) }
  }))
  app.decorateRequest('signedIn', undefined)
  // onRequest (after @fastify/session's own) so that even a request that later fails validation
  // keeps the cookie alive.
  // A callback hook, not an async one: it runs on every request and waits only to end a session.
  app.addHook('onRequest', (request, reply, done) => {
    const session = request.session
    if (session?.authenticatedAt === undefined) {
      done()
      return
    }
    // A sign-in from before sessions had handles gets one now, so it can be listed and named.
    session.handle ??= newSessionHandle()
    const signedIn = signedInOf(session.sessionId, session, settings)
    if (signedIn === undefined) {
      done()
      return
    }
    const now = app.clock()
    // A cookie signed with an older SESSION_SECRETS entry: @fastify/session re-signs the id with
    // the first secret but, for a session this request does not modify, clears the cookie instead
    // of sending the new one (saveUninitialized: false). Touching the session sends the re-signed
    // cookie and re-seals the record with the current TOKEN_KEYS entry. So does one that came
    // under the name before 0.2.0 only (plugins/previous-cookie-name.ts): it gets today's.
    const { config } = request.routeOptions
    const arrival = arrivalOf(signedIn, {
      now,
      idleTimeoutMs: settings.idleTimeoutMs,
      isActivity: config.touchesSession !== false,
      replacesSession: config.replacesSession === true,
      cookieToRenew: request.cookies[settings.cookieName] !== session.encryptedSessionId || cameUnderPreviousName(request)
    })
    if (arrival === 'end') {
      endSignIn(app, request, reply, 'expired').then(() => { done() }, done)
      return
    }
    if (arrival !== 'replace') request.signedIn = signedIn
    if (arrival === 'touch') keepAlive(request, now)
    done()
  })

  /** Moves the idle timeout on from now: the record is saved as the answer goes out. */
  const keepAlive = (request: FastifyRequest, now = app.clock()): void => {
    const { session } = request
    if (session?.authenticatedAt === undefined) return
    session.lastSeen = now
    request.signedIn = signedInOf(session.sessionId, session, settings)
  }
  app.decorate('keepAlive', (request: FastifyRequest) => { keepAlive(request) })

  app.decorate('endSignIn', async (request: FastifyRequest, reply: FastifyReply, ending: Ending = 'signed_out') => { await endSignIn(app, request, reply, ending) })
  app.decorate('beginSession', async (request: FastifyRequest, signedIn: SignedInSession, replacing: SignedIn | undefined) => { await beginSignedInSession(app, request, signedIn, replacing) })
  app.decorate('signedInById', async (sid: string | undefined): Promise<SignedIn | undefined> => await liveSessionFrom(app, sid))
  app.decorate('grantOf', async (request: FastifyRequest): Promise<StoredGrant | undefined> => {
    const { signedIn, sessionGrant } = request
    if (signedIn === undefined) return undefined
    return sessionGrant?.grant.id === signedIn.grantId ? sessionGrant : await app.grants.read(signedIn.grantId)
  })
}, { name: 'session', dependencies: ['config', 'stores', 'metrics', 'live-updates'] })

async function endSignIn (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, ending: Ending): Promise<void> {
  const { session } = request
  if (session === undefined || session === null) return
  app.sessionCore.forget(session.sessionId)
  await endSession(endingParts(app), session, async () => { await session.destroy() }, ending)
  const { cookieName, secureCookie } = app.config.session
  reply.clearCookie(cookieName, { path: '/', httpOnly: true, secure: secureCookie, sameSite: 'strict' })
}

async function beginSignedInSession (app: FastifyInstance, request: FastifyRequest, signedIn: SignedInSession, replacing: SignedIn | undefined): Promise<void> {
  const held: HeldSession = {
    sid: request.session.sessionId,
    record: request.session,
    rotate: async () => { await request.session.regenerate() },
    save: async (record) => {
      Object.assign(request.session, record)
      // A Secure cookie is not issued over plain http (a proxy not in TRUST_PROXY, say): no
      // session comes of it (@fastify/session skips it as it answers).
      if (app.config.session.secureCookie && request.protocol !== 'https') return undefined
      // Saved now rather than as the answer goes out (which then has nothing left to save).
      await request.session.save()
      return request.session.sessionId
    },
    destroy: async () => { await request.session.destroy() }
  }
  await beginSession({
    ...endingParts(app),
    dropSession: app.sessionStore.drop,
    recordSignIn: app.personSessions.recordSignIn
  }, held, {
    session: signedIn,
    replacing,
    device: describeDevice(request.headers['user-agent']),
    network: coarseNetwork(request.ip),
    // For a sign-in another tab began in the session just replaced (plugins/replaced-sessions.ts).
    // Best effort: without it, that sign-in leaves this session to its idle timeout. Only while
    // another sign-in of this browser is open (a login cookie besides this callback's): nothing
    // else could follow it, and the sign-in store is sized for one entry per sign-in.
    afterSave: async (sid, previous) => {
      const loginCookie = `${app.config.session.cookieName}-login-`
      const othersOpen = Object.keys(request.cookies).filter((name) => name.startsWith(loginCookie)).length > 1
      if (othersOpen) await rememberReplaced(app, [previous.live ? previous.sid : undefined, replacing?.sid], sid).catch(() => {})
    }
  })
}

function endingParts (app: FastifyInstance): EndSessionParts {
  return {
    deleteGrant: async (grantId) => { await app.grants.delete(grantId) },
    forget: app.personSessions.forget,
    ended: app.sessionsEnded
  }
}
