// Sign-in, callback, session state and sign-out (docs/reference/http-api.md, "Routes"). Thin:
// validate, call the domain, put the result in the session.
import type { FastifyPluginAsyncTypebox, Static } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError, loginUrl } from '../src/errors.js'
import { MAX_LENGTH as MAX_RETURN_TO_LENGTH, parseReturnTarget } from '../src/sign-in/return-to.js'
import { parseScopes } from '../src/scopes.js'
import { startSignIn } from '../src/sign-in/sign-in.js'
import { runCallback, type CallbackOutcome } from '../src/sign-in/callback.js'
import { LoginTooLargeError } from '../src/sign-in/login-transactions.js'
import { sessionAfterSignIn } from '../src/sign-in/session-after-sign-in.js'
import { authErrorPage } from '../src/pages/auth-error-page.js'
import { POPUP_NONCE, POPUP_SCRIPT, popupPage, type PopupResult } from '../src/pages/popup-page.js'
import { StoreUnavailableError } from '../src/store/key-value-store.js'
import type { Grant } from '../src/grants/grant-store.js'
import type { LoginTransaction } from '../src/sign-in/login-transactions.js'
import { SESSION_IF_ANY } from './schemas.js'
import { REGISTRATION_HEADER } from '../src/device-binding/wire.js'
import { header, json, redirect, refusal, refusals, RETRY_AFTER, text } from './responses.js'
import { ErrorBody, SessionState, SignedInSession, SignedOut } from '../src/contract/index.js'

const LoginQuery = Type.Object({
  return_to: Type.Optional(Type.String({ maxLength: MAX_RETURN_TO_LENGTH })),
  scope: Type.Optional(Type.String({ maxLength: 256 })),
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
  prompt: Type.Optional(Type.Literal('login', { description: 'Ask the media service for a fresh login, whatever session it keeps: what a `reauth_required` for a recent sign-in sends the browser to' })),
  framed: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'With `popup`, from a page in another site\'s frame (FRAME_ANCESTORS): the SHA-256 (base64url) of a verifier the frame keeps. The sign-in begins a session of the frame\'s own (this browser\'s other session is left as it is), which the popup\'s last page hands over to the frame (POST /auth/session/handoff, with the verifier)' })),
  popup: Type.Optional(Type.String({ pattern: POPUP_NONCE.source, description: 'The sign-in runs in a popup the page opened: its last page tells the page, by this nonce, and closes itself instead of taking the browser back (the browser module\'s signInInPopup and askInPopup)' }))
})

const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  message: Type.Optional(Type.String({ maxLength: 2048 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 }))
})

/** How soon to try again when no more sign-ins are taken. */
const FULL_RETRY_AFTER_S = 60

const LOGIN_LIMIT = 'sign-ins and callbacks from this address (RATE_LIMIT_LOGIN_PER_MINUTE)'
const SET_COOKIE = (description: string, required = false): TSchema => header(Type.String({ description }), required)

const LOGIN_RESPONSES = {
  302: redirect('The sign-in begins: the browser goes on to the tenant\'s authorization page, carrying this sign-in in a login cookie', 'The tenant\'s authorize URL (PKCE, state, scopes)', {
    'Set-Cookie': SET_COOKIE('The login cookie of this sign-in (one of the browser\'s slots), for LOGIN_TIMEOUT; older ones it replaces are cleared', true)
  }),
  ...refusals({
    validated: ['the query'],
    limit: LOGIN_LIMIT,
    own: {
      400: ['`invalid_request`: return_to is not a path on this site nor a URL on an origin of ALLOWED_ORIGINS, or too long; the tenant is unknown; or the scope is not one this site asks for (`known_scopes` lists those)'],
      503: ['`unavailable`: no more people can sign in right now (the stores are full); nobody signed in is dropped for it']
    }
  })
}

const CALLBACK_RESPONSES = {
  302: redirect('The sign-in ended: the browser goes back to the site, signed in with a new session cookie, or with `auth_error=<code>` when the authorization server refused (its error: access_denied, ...), the issuer did not match, or the code could not be exchanged', 'The return path (or URL on an origin of ALLOWED_ORIGINS) the sign-in began with, with `auth_error` when it failed', {
    'Set-Cookie': SET_COOKIE('The new session cookie when signed in; the login cookie of this sign-in cleared or spent')
  }),
  200: text(['text/html'], 'A sign-in begun with `popup`: its last page, which tells the page that opened the popup how the sign-in ended (a message to the return target\'s origin, by the nonce) and closes itself', {
    'Set-Cookie': SET_COOKIE('The new session cookie when signed in; the login cookie of this sign-in cleared or spent')
  }),
  400: text(['text/html'], 'A short page for a person (never a JSON error: a browser landed here): the state is unknown, replayed, expired or from another browser, a newer sign-in in this browser took its place, the sign-in reached media-bff over plain http where its Secure cookie cannot be set, or the query is malformed'),
  429: refusal([`\`rate_limited\`: too many ${LOGIN_LIMIT} within a minute`], { 'Retry-After': RETRY_AFTER }),
  503: {
    description: 'A short page (text/html) when the session store cannot be reached to finish the sign-in or no more people can sign in now (the same callback works once there is room); or `unavailable` (JSON, with Retry-After) when media-bff is stopping, or the store cannot be reached for the browser\'s session',
    headers: { 'Retry-After': RETRY_AFTER },
    content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: ErrorBody } }
  }
}

const SESSION_ANSWER = 'Who is signed in in this browser, with which scopes, until when; or, signed out, where to sign in'

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app
  const siteOrigins: ReadonlySet<string> = new Set(config.allowedOrigins)
  const signInUrl = loginUrl(config.basePath)
  // Partitioned as the session cookie is with FRAME_ANCESTORS: a sign-in then runs in a popup, a
  // top-level window, whose partition is the site's own.
  const cookieOptions = { httpOnly: true, secure: config.session.secureCookie, sameSite: 'lax' as const, path: '/', ...(config.frameAncestors.length > 0 ? { partitioned: true } : {}) }
  // A login cookie lives exactly as long as the sign-in it carries (LOGIN_TIMEOUT).
  const loginCookieMaxAgeS = Math.max(1, Math.ceil(config.session.loginTimeoutMs / 1000))
  // What a sign-in may ask for: OAUTH_SCOPES and the scopes the routes declare (plugins/gate.ts),
  // complete once every route is registered, before the first request.
  const requestableScopes = app.requestableScopes

  app.get('/auth/login', {
    schema: { tags: ['auth'], operationId: 'startSignIn', summary: 'Start a sign-in (browser navigation)', security: SESSION_IF_ANY, querystring: LoginQuery, response: LOGIN_RESPONSES },
    config: { limit: 'login', caller: 'navigation' }
  }, async (request, reply) => {
    const { query } = request
    // A framed page's sign-in is the frame's: it neither replaces nor builds on the session this
    // browser holds in the site's own partition, which the popup's request carries.
    const framed = query.popup !== undefined && config.frameAncestors.length > 0 ? query.framed : undefined
    const signedIn = framed === undefined ? request.signedIn : undefined
    const returnTo = query.return_to === undefined ? '/' : parseReturnTarget(query.return_to, siteOrigins)
    if (returnTo === undefined) {
      throw new AppError('invalid_request', 'return_to must be a path on this site, such as /uploads, or a URL on an origin of ALLOWED_ORIGINS.', { details: { field: 'return_to' } })
    }
    // The transaction stores the normalised path, which percent-encoding can make several times
    // longer than the query's: the bound applies to what is stored.
    if (returnTo.length > MAX_RETURN_TO_LENGTH) {
      throw new AppError('invalid_request', `return_to is too long: at most ${MAX_RETURN_TO_LENGTH} characters once percent-encoded.`, { details: { field: 'return_to' } })
    }
    const addedScopes = parseScopes(query.scope)
    const tenant = query.tenant ?? signedIn?.tenant ?? config.defaultTenant
    if (!config.tenants.has(tenant)) {
      throw new AppError('invalid_request', `Unknown tenant ${tenant}.`, { details: { field: 'tenant' } })
    }
    // Re-authorization keeps what the session already has on the same tenant.
    let grantedScopes: string[] = []
    if (signedIn !== undefined && signedIn.tenant === tenant) {
      grantedScopes = (await app.sessions.grantOf(request))?.grant.scopes ?? []
    }
    // Only what this deployment may ask for (OAUTH_SCOPES and the scopes its routes require), and
    // what the session already holds: a reauthorize_url repeats the granted scopes, and those may
    // include one the authorization server granted unasked.
    const refused = addedScopes.filter((scope) => !requestableScopes.has(scope) && !grantedScopes.includes(scope))
    if (refused.length > 0) {
      throw new AppError('invalid_request', `This site does not ask for the scope ${refused.join(', ')}.`, { details: { field: 'scope', known_scopes: [...requestableScopes] } })
    }
    if (!await app.roomForSignIn()) {
      app.metrics.login('refused_full')
      throw new AppError('unavailable', 'No more people can sign in right now; everyone signed in stays so. Try again in a few minutes.', { retryAfter: FULL_RETRY_AFTER_S })
    }
    // Nothing is stored: the transaction goes to the browser, sealed (src/sign-in/login-transactions.ts).
    const started = await startSignIn(config, app.authorizationServers, app.loginTransactions, {
      tenant, returnTo, grantedScopes, addedScopes, cookies: request.cookies, previousSid: signedIn?.sid, boundBy: signedIn?.binding?.id, popup: query.popup, framed, freshLogin: query.prompt === 'login'
    }).catch((error: unknown) => {
      if (!(error instanceof LoginTooLargeError)) throw error
      throw new AppError('invalid_request', 'return_to is too long for a sign-in to carry.', { details: { field: 'return_to' } })
    })
    app.metrics.login('redirected')
    for (const name of started.dropped) reply.clearCookie(name, cookieOptions)
    reply.setCookie(started.cookie.name, started.cookie.value, { ...cookieOptions, maxAge: loginCookieMaxAgeS })
    if (query.popup !== undefined) keepOpener(reply)
    return await reply.header('cache-control', 'no-store').redirect(started.authorizationUrl, 302)
  })

  app.get(config.oauth.callbackPath, {
    schema: { tags: ['auth'], operationId: 'finishSignIn', summary: 'The redirect URI (browser navigation)', security: SESSION_IF_ANY, querystring: CallbackQuery, response: CALLBACK_RESPONSES },
    // A browser lands here: a malformed query gets the human page, not a JSON error.
    attachValidation: true,
    config: { limit: 'login', replacesSession: true, caller: 'navigation' }
  }, async (request, reply) => {
    const outcome = await runCallback({
      config,
      servers: app.authorizationServers,
      transactions: app.loginTransactions,
      grants: app.grants,
      media: app.media,
      roomForSignIn: app.roomForSignIn,
      onUserInfoFailure: (error) => request.log.warn({ err: { type: (error as Error).name, message: (error as Error).message } }, 'user/info failed during sign-in'),
      onExchangeFailure: (error, clientRejected) => {
        // Our client credentials were refused: every sign-in fails alike until the operator acts.
        if (clientRejected !== undefined) request.log.error({ tokenError: clientRejected }, 'the token endpoint refused media-bff\'s client credentials (OAUTH_CLIENT_ID / OAUTH_CLIENT_SECRET)')
        else request.log.warn({ err: { type: (error as Error).name, message: (error as Error).message } }, 'code exchange failed')
      }
    }, {
      query: request.validationError === undefined ? request.query : undefined,
      rawQuery: new URLSearchParams(request.query as Record<string, string>),
      cookies: request.cookies,
      canSetCookie: !config.session.secureCookie || request.protocol === 'https',
      requestId: request.id
    })
    if (outcome.kind === 'page' && outcome.page === 'insecure_transport') {
      request.log.warn('a sign-in reached media-bff over plain http, where its Secure session cookie cannot be set: is the proxy in TRUST_PROXY, and does it send X-Forwarded-Proto?')
    }
    changeSlot(reply, outcome.slot)
    if (outcome.kind === 'signed_in') return await signIn(request, reply, outcome)
    app.metrics.callback(outcome.outcome)
    app.audit('sign_in_refused', { reason: outcome.outcome }, request)
    reply.header('cache-control', 'no-store')
    if (outcome.kind === 'back' && outcome.transaction.popup !== undefined) return await popupDone(reply, outcome.transaction, { outcome: 'error', error: outcome.code })
    if (outcome.kind === 'back') return await reply.redirect(outcome.location, 302)
    return await reply.code(outcome.status).type('text/html; charset=utf-8').send(authErrorPage(outcome.page, signInUrl))
  })

  const changeSlot = (reply: FastifyReply, slot: CallbackOutcome['slot']): void => {
    if (slot === undefined) return
    if (slot.kind === 'clear') reply.clearCookie(slot.cookieName, cookieOptions)
    else reply.setCookie(slot.cookieName, slot.value, { ...cookieOptions, maxAge: loginCookieMaxAgeS })
  }

  /** A completed sign-in becomes this browser's new session (what carries over is decided first). */
  const signIn = async (request: FastifyRequest, reply: FastifyReply, { completed, transaction }: Extract<CallbackOutcome, { kind: 'signed_in' }>): Promise<FastifyReply> => {
    reply.header('cache-control', 'no-store')
    if (transaction.framed !== undefined && transaction.popup !== undefined) return await signInFramed(request, reply, completed, { ...transaction, popup: transaction.popup, framed: transaction.framed })
    try {
      // Only a live session carries anything over (an expired one is replaced, not continued):
      // this request's, or (the callback arrives without the SameSite=Strict cookie) the one the
      // sign-in began in, or what replaced that since.
      const previous = request.signedIn ?? await app.sessions.beganIn(transaction.previousSid)
      const signedIn = sessionAfterSignIn(
        previous === undefined ? {} : { userId: previous.user.id, tenant: previous.tenant, deniedScopes: [...previous.deniedScopes], uploadOwner: previous.uploadOwner, name: previous.user.name, email: previous.user.email, entitlements: previous.entitlements === undefined ? undefined : [...previous.entitlements], binding: previous.binding },
        { grantId: completed.grant.id, grantedScopes: completed.grant.scopes, user: completed.user, deniedScopes: completed.deniedScopes },
        transaction,
        app.clock()
      )
      await app.sessions.begin(request, signedIn, previous)
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error
      await notKept(request, completed)
      // A browser navigation: the human page, not a JSON error.
      return await reply.code(503).type('text/html; charset=utf-8').send(authErrorPage('unavailable', signInUrl))
    }
    app.metrics.callback('signed_in')
    const session = request.session as { handle?: unknown } | null
    app.audit('sign_in', { tenant: completed.grant.tenant, person: completed.grant.userId, session: typeof session?.handle === 'string' ? session.handle : undefined }, request)
    if (transaction.popup !== undefined) return await popupDone(reply, transaction, { outcome: 'signed_in' })
    return await reply.redirect(transaction.returnTo, 302)
  }

  /** A completed sign-in the store failed to keep: its grant goes, counted and recorded as refused. */
  const notKept = async (request: FastifyRequest, completed: Extract<CallbackOutcome, { kind: 'signed_in' }>['completed']): Promise<void> => {
    await app.grants.delete(completed.grant.id).catch(() => {})
    app.metrics.callback('unavailable')
    app.audit('sign_in_refused', { reason: 'unavailable', tenant: completed.grant.tenant, person: completed.grant.userId }, request)
  }

  /**
   * A framed page's sign-in (FRAME_ANCESTORS): a session of its own, begun apart from this
   * browser's cookie (which stays as it was), and a one-time code for the frame to take it with.
   */
  const signInFramed = async (request: FastifyRequest, reply: FastifyReply, completed: Extract<CallbackOutcome, { kind: 'signed_in' }>['completed'], transaction: LoginTransaction & { popup: string, framed: string }): Promise<FastifyReply> => {
    let handoff: string
    try {
      const signedIn = sessionAfterSignIn({}, { grantId: completed.grant.id, grantedScopes: completed.grant.scopes, user: completed.user, deniedScopes: completed.deniedScopes }, transaction, app.clock())
      handoff = await app.sessions.beginForFrame(request, signedIn, transaction.framed)
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error
      await notKept(request, completed)
      return await popupDone(reply, transaction, { outcome: 'error', error: 'unavailable' })
    }
    app.metrics.callback('signed_in')
    app.audit('sign_in', { tenant: completed.grant.tenant, person: completed.grant.userId, framed: 'popup' }, request)
    return await popupDone(reply, transaction, { outcome: 'signed_in', handoff })
  }

  /**
   * A popup's sign-in keeps its opener: media-bff's pages (Cross-Origin-Opener-Policy
   * same-origin-allow-popups) keep their handle on a popup whose pages say unsafe-none, from its
   * first answer to its last.
   */
  const keepOpener = (reply: FastifyReply): void => { reply.header('cross-origin-opener-policy', 'unsafe-none') }
  /** The popup's last page (src/pages/popup-page.ts), to the origin the sign-in was to come back to. */
  const popupDone = async (reply: FastifyReply, transaction: { returnTo: string, popup?: string }, result: Pick<PopupResult, 'outcome' | 'error' | 'handoff'>): Promise<FastifyReply> => {
    keepOpener(reply)
    const page = popupPage({ nonce: transaction.popup ?? '', targetOrigin: new URL(transaction.returnTo, config.publicOrigin).origin, ...result }, `${config.basePath}/auth/popup.js`)
    return await reply.code(200).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page)
  }

  if (config.frameAncestors.length > 0) {
    app.post('/auth/session/handoff', {
      schema: {
        tags: ['auth'],
        operationId: 'takeSessionHandoff',
        summary: 'A page in another site\'s frame (FRAME_ANCESTORS) takes the session its sign-in popup began, into its own cookie partition',
        security: SESSION_IF_ANY,
        body: Type.Object({
          code: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'The one-time code the popup\'s last page gave the frame' }),
          verifier: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'The verifier whose SHA-256 the sign-in began with (`framed=`)' })
        }, { additionalProperties: false }),
        response: {
          200: json(SessionState, `The frame holds the session now. ${SESSION_ANSWER}`, { 'Set-Cookie': SET_COOKIE('The session cookie, in the frame\'s partition', true) }),
          ...refusals({ csrf: true, body: true, validated: ['the body'], limit: LOGIN_LIMIT, own: { 400: ['`invalid_request`: the code is unknown, used or more than a minute old, the verifier is not the sign-in\'s, or the call comes from another device or network than the sign-in'] } })
        }
      },
      config: { limit: 'login' }
    }, async (request, reply) => {
      if (!await app.sessions.takeHandoff(request, reply, request.body)) {
        throw new AppError('invalid_request', 'That sign-in cannot be taken here: it was taken already, or is too old. Sign in again.', { details: { field: 'code' } })
      }
      return await sessionState(request, reply)
    })
  }

  app.get('/auth/popup.js', {
    schema: { tags: ['auth'], operationId: 'popupScript', summary: 'The script of a popup sign-in\'s last page: it tells the page that opened the popup, and closes it', response: { 200: text(['text/javascript'], 'The script') } },
    config: { caller: 'anyone' }
  }, async (_request, reply) => await reply.header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(POPUP_SCRIPT))

  /**
   * The session as GET /auth/session and the keep-alive answer it, as JSON text; a session whose
   * grant is gone ends here. Text, not an object for Fastify to serialise: SessionState is a union,
   * and its serialiser validates every answer against each branch (the date-time formats
   * included) to pick one, which cost more than the rest of the route.
   */
  const sessionState = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const text = await sessionText(request, reply)
    // A session just signed in, not bound to a key yet, is offered to be (DEVICE_BOUND_SESSIONS):
    // every page asks this as it loads.
    const { signedIn } = request
    const offer = signedIn === undefined ? undefined : app.deviceBinding?.offer(signedIn, app.clock())
    if (offer !== undefined) reply.header(REGISTRATION_HEADER, offer)
    await reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(text)
  }
  const sessionText = async (request: FastifyRequest, reply: FastifyReply): Promise<string> => {
    const { signedIn } = request
    if (signedIn === undefined) return signedOut
    const stored = await app.sessions.grantOf(request)
    if (stored === undefined) {
      await app.sessions.end(request, reply, 'grant_gone')
      return signedOut
    }
    const { grant } = stored
    const reauthRequired = grant.refreshToken === undefined && grant.expiresAt <= Date.now()
    const key = `${signedIn.handle} ${signedIn.idleEndsAt} ${signedIn.absoluteEndsAt} ${String(reauthRequired)}`
    const known = answers.get(grant)
    if (known?.key === key) return known.json
    const { user } = signedIn
    const answer: Static<typeof SignedInSession> = {
      authenticated: true,
      user: { id: user.id ?? null, name: user.name ?? null, email: user.email ?? null },
      tenant: grant.tenant,
      scopes: grant.scopes,
      expires_at: new Date(signedIn.endsAt).toISOString(),
      idle_expires_at: new Date(signedIn.idleEndsAt).toISOString(),
      absolute_expires_at: new Date(signedIn.absoluteEndsAt).toISOString(),
      reauth_required: reauthRequired
    }
    const json = JSON.stringify(answer)
    answers.set(grant, { key, json })
    return json
  }
  const signedOut = JSON.stringify({ authenticated: false, login_url: signInUrl } satisfies Static<typeof SessionState>)
  // Tabs ask for the session whenever they are looked at again, and the answer seldom changes: it
  // is built once per grant record (a refresh or a new sign-in makes another) and kept while the
  // session's deadlines and its token's state stay as they were.
  const answers = new WeakMap<Grant, { key: string, json: string }>()

  app.get('/auth/session', {
    schema: { tags: ['auth'], operationId: 'getSession', summary: 'Who is signed in, with which scopes, until when; reading it does not count as activity', security: SESSION_IF_ANY, response: { 200: json(SessionState, SESSION_ANSWER, { 'Secure-Session-Registration': header(Type.String({ description: 'With DEVICE_BOUND_SESSIONS, to a session not bound yet: where a browser with DBSC binds it to a key of its own (POST /auth/device/register), and the challenge to sign' })) }), ...refusals({ csrf: true }) } },
    // Tabs ask this whenever they are looked at again: asking must not keep an idle session alive.
    config: { touchesSession: false }
  }, sessionState)

  app.post('/auth/session/keepalive', {
    schema: { tags: ['auth'], operationId: 'keepSessionAlive', summary: '"Stay signed in": resets the idle timeout (never the absolute one) and answers like GET /auth/session', security: SESSION_IF_ANY, response: { 200: json(SessionState, `The idle timeout starts again, when signed in. ${SESSION_ANSWER}`), ...refusals({ csrf: true, body: true }) } }
  }, async (request, reply) => {
    app.sessions.keepAlive(request)
    return await sessionState(request, reply)
  })

  app.post('/auth/logout', {
    schema: {
      tags: ['auth'],
      operationId: 'signOut',
      summary: 'Sign out: the session and its grant are destroyed',
      security: SESSION_IF_ANY,
      response: {
        200: json(SignedOut, 'Signed out (or was not signed in): the session and its grant are gone, its cookie cleared, and the browser told to drop its cached answers', {
          'Clear-Site-Data': header(Type.String({ const: '"cache"', description: 'The browser\'s HTTP cache of this origin is dropped: it held the person\'s relayed answers' }), true),
          'Set-Cookie': SET_COOKIE('The session cookie, cleared, when there was a session')
        }),
        ...refusals({ csrf: true, body: true })
      }
    }
  }, async (request, reply) => {
    const { signedIn } = request
    // A copy of a bound session's cookie (DEVICE_BOUND_SESSIONS) signs nobody out: it only has this
    // browser forget the cookie.
    if (app.sessions.showsBinding(request)) await app.sessions.end(request, reply)
    else app.sessions.forget(reply)
    if (signedIn !== undefined) app.audit('sign_out', { tenant: signedIn.tenant, person: signedIn.user.id, session: signedIn.handle }, request)
    // The browser's HTTP cache holds this person's relayed answers (private, revalidated, bound
    // to them): drop it, so nothing of theirs is left for whoever uses the browser next. Only
    // "cache": "cookies" or "storage" would also wipe the website's own cookies and storage on
    // this origin (media-bff may share it with the site), which are not ours to clear.
    reply.header('clear-site-data', '"cache"')
    return { logged_out: true as const }
  })
}

export default routes
