// Server-side sessions: the browser holds one opaque, signed, HttpOnly cookie; everything else
// lives in the store. Idle and absolute timeouts are enforced here, server-side.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import { rememberingSigner } from './session-signer.js'
import { cameUnderPreviousName, readPreviousCookieName, writePreviousCookieName } from './previous-cookie-name.js'
import { liveSessionFrom, rememberReplaced } from './replaced-sessions.js'
import { budgetKeyOf, personOf, signedInOf, type SessionUser, type SignedIn } from '../src/sessions/signed-in.js'
import { newSessionHandle } from '../src/sessions/session-index.js'
import { describeDevice } from '../src/sessions/device.js'
import { sessionEndings, type Ending, type SessionEnded } from '../src/sessions/session-endings.js'
import { coarseNetwork } from '../src/sessions/network.js'
import type { SignedInSession } from '../src/sign-in/session-after-sign-in.js'
import type { StoredGrant } from '../src/grants/grant-store.js'
import type { SessionRecord } from '../src/sessions/signed-in.js'
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
  interface Session {
    grantId?: string
    tenant?: string
    user?: SessionUser
    /** Scopes the account is entitled to, from user/info (undefined when it did not say). */
    entitlements?: string[]
    /** Scopes asked for in a re-authorization and not granted: no further redirect for them. */
    deniedScopes?: string[]
    /** Owner key of this sign-in's upload registrations; kept across re-authorization. */
    uploadOwner?: string
    /** This session's opaque id in its person's index (GET /auth/sessions); never the cookie's id. */
    handle?: string
    authenticatedAt?: number
    lastSeen?: number
  }
}

/**
 * lastSeen is written at most this often, so a busy session is not re-saved on every call; a
 * quarter of the idle timeout keeps an active session well clear of it.
 */
const MAX_TOUCH_INTERVAL_MS = 60_000

export default fp(async (app) => {
  const { session: settings } = app.config
  const touchIntervalMs = Math.min(MAX_TOUCH_INTERVAL_MS, settings.idleTimeoutMs / 4)
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
    if (unsigned?.valid !== true || unsigned.value === null) {
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
    if (signedIn.endsAt < now) {
      if (request.routeOptions.config.replacesSession === true) done()
      else endSignIn(app, request, reply, 'expired').then(() => { done() }, done)
      return
    }
    request.signedIn = signedIn
    // A cookie signed with an older SESSION_SECRETS entry: @fastify/session re-signs the id with
    // the first secret but, for a session this request does not modify, clears the cookie instead
    // of sending the new one (saveUninitialized: false). Touching the session sends the re-signed
    // cookie and re-seals the record with the current TOKEN_KEYS entry. So does one that came
    // under the name before 0.2.0 only (plugins/previous-cookie-name.ts): it gets today's.
    const signedWithOldSecret = request.cookies[settings.cookieName] !== session.encryptedSessionId || cameUnderPreviousName(request)
    const isActivity = request.routeOptions.config.touchesSession !== false
    if ((isActivity && now - signedIn.lastSeen > touchIntervalMs) || signedWithOldSecret) keepAlive(request, now)
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
  app.decorate('beginSession', async (request: FastifyRequest, signedIn: SignedInSession, replacing: SignedIn | undefined) => { await beginSession(app, request, signedIn, replacing) })
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
  const grantId = session.grantId
  if (grantId !== undefined) await app.grants.delete(grantId)
  const person = personOf(session)
  if (person !== undefined && session.handle !== undefined) await app.personSessions.forget(person, session.handle)
  await session.destroy()
  await app.sessionsEnded(ending, { live: session.authenticatedAt === undefined ? 0 : 1, handles: session.handle === undefined ? [] : [session.handle], whose: [budgetKeyOf(session)] })
  const { cookieName, secureCookie } = app.config.session
  reply.clearCookie(cookieName, { path: '/', httpOnly: true, secure: secureCookie, sameSite: 'strict' })
}

async function beginSession (app: FastifyInstance, request: FastifyRequest, signedIn: SignedInSession, replacing: SignedIn | undefined): Promise<void> {
  // The session this sign-in replaces: the live one `replacing` names (this request's, or the one
  // the sign-in began in), else whatever this request carries (expired or none): the routes that
  // begin one never end it first (config.replacesSession).
  const previous = request.session
  const previousPerson = replacing === undefined ? personOf(previous) : replacing.person
  const previousHandle = replacing === undefined ? previous.handle : replacing.handle
  const oldGrant = replacing === undefined ? previous.grantId : replacing.grantId
  await request.session.regenerate()
  // regenerate() destroyed the session this request carried; the one the sign-in began in may be
  // another (the callback arrives without the Strict cookie).
  if (replacing !== undefined && replacing.sid !== previous.sessionId) await app.sessionStore.drop(replacing.sid)
  if (oldGrant !== undefined) await app.grants.delete(oldGrant)
  // This browser's open pages follow it to the new session (they reconnect with the new cookie).
  if (previousHandle !== undefined) await app.sessionsEnded('replaced', { live: previous.authenticatedAt === undefined ? 0 : 1, handles: [previousHandle], whose: [budgetKeyOf(previous), replacing?.budgetKey] })
  const person = personOf(signedIn)
  const samePerson = person !== undefined && previousPerson?.tenant === person.tenant && previousPerson.userId === person.userId
  if (previousPerson !== undefined && previousHandle !== undefined && !samePerson) await app.personSessions.forget(previousPerson, previousHandle)
  const handle = newSessionHandle()
  Object.assign(request.session, signedIn, { handle })
  // A Secure cookie is not issued over plain http (a proxy not in TRUST_PROXY, say): no session
  // comes of it, so there is nothing to save or index (@fastify/session skips it as it answers).
  if (app.config.session.secureCookie && request.protocol !== 'https') return
  // Saved now rather than as the answer goes out (which then has nothing left to save), so that
  // the session exists before anyone can find it in the index.
  await request.session.save()
  // For a sign-in another tab began in the session just replaced (plugins/replaced-sessions.ts).
  // Best effort: without it, that sign-in leaves this session to its idle timeout.
  // Only while another sign-in of this browser is open (a login cookie besides this callback's):
  // nothing else could follow it, and the sign-in store is sized for one entry per sign-in.
  const loginCookie = `${app.config.session.cookieName}-login-`
  const othersOpen = Object.keys(request.cookies).filter((name) => name.startsWith(loginCookie)).length > 1
  if (othersOpen) await rememberReplaced(app, [previous.authenticatedAt === undefined ? undefined : previous.sessionId, replacing?.sid], request.session.sessionId).catch(() => {})
  if (person === undefined) return
  try {
    const ended = await app.personSessions.recordSignIn(person, handle, {
      sid: request.session.sessionId,
      grantId: signedIn.grantId,
      createdAt: signedIn.authenticatedAt,
      device: describeDevice(request.headers['user-agent']),
      network: coarseNetwork(request.ip)
    }, samePerson ? previousHandle : undefined)
    await app.sessionsEnded('over_cap', ended)
  } catch (error) {
    // Not indexed, not kept: a session nobody could list or end from elsewhere.
    await request.session.destroy().catch(() => {})
    throw error
  }
}
