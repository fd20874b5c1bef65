// Server-side sessions: the browser holds one opaque, signed, HttpOnly cookie; everything else lives
// in the store. @fastify/session does the job it was made for: the cookie, the id and its
// rotation, restoring the session through its store interface and saving what changed. Its store
// is the session's one face (src/sessions/sessions.ts), and the gate's two session steps
// (plugins/gate.ts) come on either side of its restoring: `open` checks this replica's copy with
// the request's count first, so the restoring reads nothing more; `admit` then works out who is
// signed in. Grants, the tokens the sessions act with, are kept here too.
import fp from 'fastify-plugin'
import { createHash, randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest, Session } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import { rememberingSigner } from './session-signer.js'
import { readPreviousCookieName, writePreviousCookieName } from './previous-cookie-name.js'
import { notRecent, sessionSteps } from './gate.js'
import { createSessions, type Sessions } from '../src/sessions/sessions.js'
import { createSessionEpochs } from '../src/sessions/session-epochs.js'
import { newSessionHandle, type Person } from '../src/sessions/session-index.js'
import { personOfBudgetKey, signedInOf, type SignedIn, type StoredSession } from '../src/sessions/signed-in.js'
import type { Ending } from '../src/sessions/session-endings.js'
import type { LiveSession } from '../src/sessions/person-sessions.js'
import type { HeldSession } from '../src/sessions/begin-session.js'
import { describeDevice } from '../src/sessions/device.js'
import { vouchFor } from '../src/sessions/vouch.js'
import { changedSignals, type Whereabouts } from '../src/sessions/anomaly.js'
import { bindingOf, type Binding } from '../src/device-binding/device-binding.js'
import type { BoundCookieFault } from '../src/device-binding/bound-cookie.js'
import { createBoundedMemo } from '../src/bounded-memo.js'
import { coarseNetwork } from '../src/sessions/network.js'
import type { SignedInSession } from '../src/sign-in/session-after-sign-in.js'
import { createGrantStore, type GrantStore, type StoredGrant } from '../src/grants/grant-store.js'
import { createTokenCipher } from '../src/store/token-cipher.js'

/** A request's session, as the routes act on it: one call per act, each ending finishing itself. */
export interface SessionFace {
  /**
   * "Stay signed in": resets the idle timeout (never the absolute one) of the request's signed-in
   * session, when the request is admitted as it (request.signedIn); request.signedIn follows.
   */
  keepAlive: (request: FastifyRequest) => void
  /**
   * Ends the sign-in the request's session holds (`signed_out`, the default; `expired`;
   * `grant_gone`): record, grant and index entry gone, cookie cleared, announced, counted, every
   * replica told. Rejects (the session as it was) only when its record could not be dropped.
   */
  end: (request: FastifyRequest, reply: FastifyReply, ending?: Ending) => Promise<void>
  /**
   * Puts a completed sign-in into a new session: the id rotated (no fixation), the session it
   * replaces ended, and the new one indexed under its person. Nothing is kept if the store fails.
   */
  begin: (request: FastifyRequest, signedIn: SignedInSession, replacing: SignedIn | undefined) => Promise<void>
  /**
   * The live signed-in session a sign-in began in (`sid`), or the one that replaced it since: what
   * the callback, arriving without the SameSite=Strict cookie, replaces. A store failure throws.
   */
  beganIn: (sid: string | undefined) => Promise<SignedIn | undefined>
  /** The request's signed-in session's grant, as opened with it; undefined when it is gone. */
  grantOf: (request: FastifyRequest) => Promise<StoredGrant | undefined>
  /** The signed-in person's live sessions, this one always among them, most recently active first. */
  list: (request: FastifyRequest) => Promise<LiveSession[]>
  /** Ends one of the signed-in person's sessions by its handle (this one: a sign-out). */
  endOne: (request: FastifyRequest, reply: FastifyReply, handle: string) => Promise<{ ended: number, signedOut: boolean }>
  /** Ends every session of the signed-in person but this one; resolves to how many were live. */
  endOthers: (request: FastifyRequest) => Promise<number>
  /** Ends every session and grant of a person (an operator's lever); resolves to how many were live. */
  endPerson: (person: Person) => Promise<number>
  /** The person's live sessions (webhook follow-ups, finishes). */
  of: (person: Person) => Promise<LiveSession[]>
  /** When a session (by its store id) ends unless it is used before; undefined when it is over. */
  liveUntil: (sid: string) => Promise<number | undefined>
  /**
   * The session id the cookie names, read from the request's Cookie header as the browser sent it:
   * for a proxy's check, whose cookie the gate keeps from @fastify/session (src/gate/admission.ts).
   */
  sidAsked: (request: FastifyRequest) => string | undefined
  /** The live signed-in session `sid` names and its grant, read and never touched, written or ended. */
  look: (sid: string) => Promise<{ signedIn: SignedIn, grant: StoredGrant } | undefined>
  /**
   * Whether the request comes from the browser its session is bound to: true unless the session
   * is bound to a key (DEVICE_BOUND_SESSIONS) and the request shows no short-lived cookie that
   * holds for it. What only that browser may do (sign out, replace the session) asks this.
   */
  showsBinding: (request: FastifyRequest) => boolean
  /**
   * Binds the request's signed-in session to a key (routes/device-binding.ts), written at once:
   * false when its record changed meanwhile (a binding on another replica, a sign-out), and
   * nothing was written.
   */
  bind: (request: FastifyRequest, binding: Binding) => Promise<boolean>
  /** Clears the session cookie from the browser, ending nothing. */
  forget: (reply: FastifyReply) => void
  /** Where the request comes from (its device and network), as a sign-in records it. */
  whereabouts: (request: FastifyRequest) => Whereabouts
  /**
   * Begins a completed sign-in's session for a page in another site's frame (FRAME_ANCESTORS),
   * apart from the request's own: its sign-in ran in a popup, whose cookie lands in another
   * partition than the frame's, so no cookie is set; resolves to a one-time code (good for
   * HANDOFF_LIFETIME_MS) the frame takes it with, alongside the verifier whose SHA-256 `verifierHash` is.
   */
  beginForFrame: (request: FastifyRequest, signedIn: SignedInSession, verifierHash: string) => Promise<string>
  /**
   * Takes a handoff (once): with the verifier, from the sign-in's device and network, the answer
   * gives the frame the session's cookie in its own partition (ending the frame's earlier one),
   * and request.signedIn is that session. False otherwise: the code unknown, used or too old, the
   * verifier or the place another, the session over.
   */
  takeHandoff: (request: FastifyRequest, reply: FastifyReply, handoff: { code: string, verifier: string }) => Promise<boolean>
}

/** How long a handoff code holds: a popup's last page gives it to its frame at once. */
const HANDOFF_LIFETIME_MS = 60_000
const handoffKey = (code: string): string => `handoff:${createHash('sha256').update(code).digest('base64url')}`

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who is signed in with this request's session (src/sessions/signed-in.ts), worked out once
     * as the request is admitted; undefined when nobody is (or the session just ended).
     */
    signedIn: SignedIn | undefined
  }
  interface FastifyInstance {
    sessions: SessionFace
    grants: GrantStore
  }
  // The stored session's fields, declared once (src/sessions/signed-in.ts).
  interface Session extends StoredSession {}
}

export default fp(async (app) => {
  const { config, stores } = app
  const settings = config.session
  // Every cookie media-bff sets or clears carries these unless it says otherwise: so
  // @fastify/session's clearing of a cookie it cannot use (a forged or unknown id), which names
  // only the path, is Secure too, and a browser takes the clearing of a __Host- cookie.
  // SameSite=Strict (RFC 10017): no request another site starts carries the session, not even a
  // top-level navigation. Pages call media-bff with fetch from their own site, which carries it;
  // the sign-in's own cookies are Lax (routes/auth.ts), as the media service's redirect back must
  // carry them, and they name the session a sign-in replaces (LoginTransaction.previousSid).
  // With FRAME_ANCESTORS, a page of the site shown in another site's frame must be signed in too:
  // then SameSite=None and Partitioned (CHIPS), so each framing site's frames hold a session of
  // their own, which no other site's pages see (docs/guide/security.md, "In a frame").
  const framed = config.frameAncestors.length > 0
  const cookieDefaults = { httpOnly: true, secure: settings.secureCookie, sameSite: framed ? 'none' as const : 'strict' as const, path: '/', ...(framed ? { partitioned: true } : {}) }
  await app.register(fastifyCookie, { parseOptions: cookieDefaults })
  const signer = rememberingSigner(new fastifyCookie.Signer(settings.secrets, 'sha256'))

  const cipher = createTokenCipher(config.tokenKeys)
  const epochs = createSessionEpochs(stores.checks, { lifetimeMs: settings.absoluteTimeoutMs })
  // A grant's change (a refresh, an ending) drops its person's epoch, like a session's.
  const grants = createGrantStore(stores.people, cipher, { ttlMs: settings.absoluteTimeoutMs, changed: epochs.changed })
  app.decorate('grants', grants)
  const sessions: Sessions<StoredGrant> = createSessions({
    people: stores.people,
    signIns: stores.signIns,
    epochs,
    cipher,
    grants: { read: grants.read, delete: async (grantId) => { await grants.delete(grantId) } },
    settings,
    now: app.clock,
    announce: (handles, reason) => { app.live.announceSessionsEnded(handles, reason) },
    count: (ending, ended) => {
      app.metrics.sessionsEnded(ending, ended.live)
      if (ended.handles.length === 0 && ended.partly !== true) return
      const people = [...new Set(ended.whose)].flatMap((key) => key === undefined ? [] : [personOfBudgetKey(key)]).filter((person) => person !== undefined)
      const [person] = people
      app.audit('session_ended', { reason: ending, sessions: ended.handles, live: ended.live, ...(people.length === 1 && person !== undefined ? { tenant: person.tenant, person: person.userId } : {}) })
    },
    leftBehind: (what, error) => { app.log.warn({ err: error }, `a session ended, and ${what} was left behind: the store failed after its record was gone`) }
  })

  const sidOf = (request: FastifyRequest): string | undefined => sidIn(request.cookies[settings.cookieName])
  const sidIn = (cookie: string | undefined): string | undefined => {
    const unsigned = cookie === undefined ? undefined : signer.unsign(cookie)
    return unsigned?.valid === true && unsigned.value !== null ? unsigned.value : undefined
  }
  const keepAlive = (request: FastifyRequest): void => {
    const { session } = request
    if (session?.authenticatedAt === undefined || request.signedIn === undefined) return
    session.lastSeen = app.clock()
    request.signedIn = signedInOf(session.sessionId, session, settings)
  }
  const end = async (request: FastifyRequest, reply: FastifyReply, ending: Ending = 'signed_out'): Promise<void> => {
    const { session } = request
    if (session === undefined || session === null) return
    await sessions.end(session.sessionId, session, ending)
    // The record is gone: @fastify/session's copy of it goes too, and with it the cookie.
    request.session = null as unknown as typeof request.session
    request.signedIn = undefined
    forget(reply)
  }
  const forget = (reply: FastifyReply): void => { reply.clearCookie(settings.cookieName, cookieDefaults) }
  const boundCookieFault = (request: FastifyRequest, bound: Binding): BoundCookieFault | undefined =>
    binding === undefined ? undefined : binding.fault(request.cookies[binding.cookieName], bound, app.clock())
  const binding = app.deviceBinding
  // Every page's signed-in call is compared with its sign-in (anomaly signals): the device named
  // from its User-Agent and the network from its address, each worked out once per text.
  const remembered = (work: (text: string) => string): (text: string) => string => {
    const memo = createBoundedMemo<string>(1000)
    return (text) => {
      let value = memo.get(text)
      if (value === undefined) {
        value = work(text)
        memo.set(text, value)
      }
      return value
    }
  }
  const deviceNamed = remembered(describeDevice)
  const networkOf = remembered(coarseNetwork)
  /** Where a request comes from, as a sign-in records it and anomaly signals compare it. */
  const whereabouts = (request: FastifyRequest): Whereabouts => ({ device: deviceNamed((request.headers['user-agent'] ?? '').slice(0, 512)), network: networkOf(request.ip) })
  /** Whether the request shows the short-lived cookie of `bound`, the binding of its session, if any. */
  const showsBinding = (request: FastifyRequest, bound: Binding | undefined): boolean => bound === undefined || boundCookieFault(request, bound) === undefined
  const steps = sessionSteps(app, {
    sessions,
    sidOf,
    end,
    touch: keepAlive,
    // Signed with an older SESSION_SECRETS entry: @fastify/session re-signs the id with the first
    // secret but, for a session this request does not modify, clears the cookie instead of
    // sending the new one (saveUninitialized: false); touching it sends it, the record re-sealed
    // with the current TOKEN_KEYS entry. One that came under the name before 0.2.0 is not renewed:
    // it is never sent under today's name (plugins/previous-cookie-name.ts).
    cookieToRenew: (request) => request.cookies[settings.cookieName] !== request.session?.encryptedSessionId,
    hideCookie: (request) => { delete request.cookies[settings.cookieName] },
    vouch: (request, signedIn) => vouchFor(signedIn, {
      boundCookieFault: binding === undefined ? undefined : (bound) => boundCookieFault(request, bound),
      whereabouts: () => whereabouts(request),
      anomaly: settings.anomaly
    }),
    showsBinding: (request, signedIn) => showsBinding(request, signedIn.binding)
  })

  // Between the cookie parser's hook and @fastify/session's: the name before 0.2.0 is read and
  // written beside today's while a rolling upgrade runs both versions.
  const { rollingUpgrade } = settings
  if (rollingUpgrade !== undefined) readPreviousCookieName(app, { cookieName: settings.cookieName, upgrade: rollingUpgrade, signer, load: sessions.restore })
  app.addHook('onRequest', steps.open)
  await app.register(fastifySession, {
    secret: signer,
    cookieName: settings.cookieName,
    saveUninitialized: false,
    // Saved when modified; the gate's touch keeps the store TTL rolling without a write per call.
    rolling: false,
    // No maxAge: a browser-session cookie; the server decides when the session ends.
    cookie: cookieDefaults,
    store: {
      // What the record holds is checked field by field where it is used (src/sessions/signed-in.ts).
      get: (sid, callback) => { settle(sessions.restore(sid).then((record) => (record ?? null) as Session | null), callback) },
      set: (sid, session, callback) => { settle(sessions.save(sid, session), callback) },
      destroy: (sid, callback) => { settle(sessions.drop(sid), callback) }
    }
  })
  if (rollingUpgrade !== undefined) writePreviousCookieName(app, settings.cookieName, rollingUpgrade)
  app.decorateRequest('signedIn', undefined)
  app.addHook('onRequest', (request, reply, done) => {
    // A sign-in from before sessions had handles gets one now, so it can be listed and named.
    if (request.session?.authenticatedAt !== undefined) request.session.handle ??= newSessionHandle()
    steps.admit(request, reply, done)
  })

  const heldBy = (request: FastifyRequest): HeldSession => ({
    sid: request.session.sessionId,
    record: request.session,
    rotate: async () => { await request.session.regenerate() },
    save: async (record) => {
      Object.assign(request.session, record)
      // A Secure cookie is not issued over plain http (a proxy not in TRUST_PROXY, say): no
      // session comes of it (@fastify/session skips it as it answers).
      if (settings.secureCookie && request.protocol !== 'https') return undefined
      // Saved now rather than as the answer goes out (which then has nothing left to save).
      await request.session.save()
      return request.session.sessionId
    },
    destroy: async () => { await request.session.destroy() }
  })
  const signedInOnly = (request: FastifyRequest): SignedIn => {
    const { signedIn } = request
    if (signedIn === undefined) throw new Error(`${request.url.split('?')[0] ?? ''} declares no scopes: nobody need be signed in`)
    return signedIn
  }

  const look = async (sid: string): Promise<{ signedIn: SignedIn, grant: StoredGrant } | undefined> => {
    const { record } = await sessions.open(sid)
    const signedIn = record === undefined ? undefined : sessions.signedIn(sid, record)
    if (signedIn === undefined || signedIn.endsAt < app.clock()) return undefined
    const grant = await sessions.grantOf(signedIn)
    return grant === undefined ? undefined : { signedIn, grant }
  }

  app.decorate<SessionFace>('sessions', {
    keepAlive,
    end,
    begin: async (request, signedIn, replacing) => {
      await sessions.begin(heldBy(request), {
        session: signedIn,
        replacing,
        ...whereabouts(request),
        // For a sign-in another tab began in the session just replaced (src/sessions/
        // replaced-sessions.ts). Best effort: without it, that sign-in leaves this session to its
        // idle timeout. Only while another sign-in of this browser is open (a login cookie besides
        // this callback's): nothing else could follow it, and the sign-in store is sized for one
        // entry per sign-in.
        afterSave: async (sid, previous) => {
          const loginCookie = `${settings.cookieName}-login-`
          const othersOpen = Object.keys(request.cookies).filter((name) => name.startsWith(loginCookie)).length > 1
          if (othersOpen) await sessions.rememberReplaced([previous.live ? previous.sid : undefined, replacing?.sid], sid).catch(() => {})
        }
      })
    },
    beganIn: sessions.liveFrom,
    grantOf: async (request) => {
      const { signedIn } = request
      return signedIn === undefined ? undefined : await sessions.grantOf(signedIn)
    },
    list: async (request) => {
      const signedIn = signedInOnly(request)
      const listed = signedIn.person === undefined ? [] : await sessions.list(signedIn.person)
      // A sign-in whose user id is unknown has no index: it sees itself only.
      if (listed.some((session) => session.handle === signedIn.handle)) return listed
      return [{
        handle: signedIn.handle,
        sid: '',
        grantId: '',
        createdAt: signedIn.authenticatedAt,
        lastActiveAt: signedIn.lastSeen,
        ...whereabouts(request)
      }, ...listed]
    },
    endOne: async (request, reply, handle) => {
      const { person, handle: own } = signedInOnly(request)
      if (handle === own) {
        await end(request, reply)
        return { ended: 1, signedOut: true }
      }
      // Ending another session is a risky act; signing this one out is not.
      const refusal = notRecent(request)
      if (refusal !== undefined) throw refusal
      const ended = person === undefined ? 0 : (await sessions.endHandles(person, [handle], 'ended_by_person')).live
      return { ended, signedOut: false }
    },
    endOthers: async (request) => {
      const { person, handle } = signedInOnly(request)
      return person === undefined ? 0 : (await sessions.endAll(person, 'other_sessions', handle)).live
    },
    endPerson: async (person) => (await sessions.endAll(person, 'operator')).live,
    of: sessions.list,
    liveUntil: sessions.liveUntil,
    sidAsked: (request) => {
      const header = request.headers.cookie
      return header === undefined ? undefined : sidIn(app.parseCookie(header)[settings.cookieName])
    },
    // A binding the record holds but that cannot be read is shown by no cookie.
    showsBinding: (request) => {
      const bound = request.session?.binding
      return showsBinding(request, bound === undefined ? undefined : bindingOf(bound) ?? bound)
    },
    whereabouts,
    bind: async (request, made) => {
      request.session.binding = made
      const written = await sessions.save(request.session.sessionId, request.session)
      if (!written) delete request.session.binding
      return written
    },
    forget,
    look,
    beginForFrame: async (request, signedIn, verifierHash) => {
      // Ids as @fastify/session makes them; the record is written (and indexed) as a sign-in's.
      const sid = randomBytes(24).toString('base64url')
      await sessions.begin({
        sid: '',
        record: {},
        rotate: async () => {},
        save: async (record) => {
          if (!await sessions.save(sid, record)) throw new Error('a new session id was taken')
          return sid
        },
        destroy: async () => { await sessions.drop(sid) }
      }, { session: signedIn, replacing: undefined, ...whereabouts(request) })
      const code = randomBytes(32).toString('base64url')
      await stores.signIns.set(handoffKey(code), JSON.stringify({ sid, verifierHash }), HANDOFF_LIFETIME_MS)
      return code
    },
    takeHandoff: async (request, reply, { code, verifier }) => {
      const key = handoffKey(code)
      const stored = await stores.signIns.get(key)
      // Taken once, whatever follows: a wrong verifier spends it.
      if (stored === undefined || !await stores.signIns.deleteIfEquals(key, stored)) return false
      const { sid, verifierHash } = JSON.parse(stored) as { sid: string, verifierHash: string }
      if (createHash('sha256').update(verifier).digest('base64url') !== verifierHash) return false
      const found = await look(sid)
      if (found === undefined) return false
      const from = found.signedIn.signedInFrom
      if (from !== undefined && changedSignals(from, whereabouts(request), ['device', 'network']).length > 0) return false
      // The frame's earlier session (another sign-in under this site) is replaced.
      const earlier = request.session
      if (earlier?.authenticatedAt !== undefined && earlier.sessionId !== sid) await sessions.end(earlier.sessionId, earlier, 'replaced').catch(() => {})
      reply.setCookie(settings.cookieName, signer.sign(sid), cookieDefaults)
      // The frame's own session is not this answer's: nothing of it is saved or sent.
      request.session = null as unknown as typeof request.session
      request.signedIn = found.signedIn
      app.audit('session_handoff', { tenant: found.signedIn.tenant, person: found.signedIn.user.id, session: found.signedIn.handle }, request)
      return true
    }
  })
}, { name: 'session', dependencies: ['config', 'gate', 'stores', 'metrics', 'audit', 'device-binding'] })

/** A promise's outcome to a store callback, later (never in the promise chain, never twice). */
function settle<T> (work: Promise<T>, callback: (error: unknown, value?: T) => void): void {
  work.then(
    (value) => { process.nextTick(callback, null, value) },
    (error: unknown) => { process.nextTick(callback, error) }
  )
}
