// Sign-in, callback, session state and sign-out (README.md, "The contract"). Thin: validate, call the
// domain, put the result in the session.
import type { FastifyPluginAsyncTypebox, Static } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError, LOGIN_URL } from '../src/errors.js'
import { MAX_LENGTH as MAX_RETURN_TO_LENGTH, parseReturnTarget } from '../src/oauth/return-to.js'
import { parseScopes } from '../src/oauth/scopes.js'
import { completeSignIn, LoginReplayedError, startSignIn } from '../src/oauth/sign-in.js'
import { LoginTooLargeError } from '../src/oauth/login-transactions.js'
import { sessionAfterSignIn } from '../src/oauth/session-after-sign-in.js'
import { classifyTokenError } from '../src/oauth/token-errors.js'
import { authErrorPage } from '../src/pages/auth-error-page.js'
import { StoreUnavailableError } from '../src/store/key-value-store.js'
import { ErrorBody } from './schemas.js'

const LoginQuery = Type.Object({
  return_to: Type.Optional(Type.String({ maxLength: MAX_RETURN_TO_LENGTH })),
  scope: Type.Optional(Type.String({ maxLength: 256 })),
  tenant: Type.Optional(Type.String({ maxLength: 64 }))
})

const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  message: Type.Optional(Type.String({ maxLength: 2048 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 }))
})

const SessionState = Type.Object({
  authenticated: Type.Boolean(),
  login_url: Type.Optional(Type.String()),
  user: Type.Optional(Type.Object({
    id: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()])
  })),
  tenant: Type.Optional(Type.String()),
  scopes: Type.Optional(Type.Array(Type.String())),
  expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the session ends unless used: the earlier of the two below' })),
  idle_expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the idle timeout ends it; any call moves it on' })),
  absolute_expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When it ends in any case (SESSION_ABSOLUTE_TIMEOUT)' })),
  reauth_required: Type.Optional(Type.Boolean())
})

/** How soon to try again when no more sign-ins are taken. */
const FULL_RETRY_AFTER_S = 60

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app
  const siteOrigins: ReadonlySet<string> = new Set(config.allowedOrigins)
  const cookieOptions = { httpOnly: true, secure: config.session.secureCookie, sameSite: 'lax' as const, path: '/' }
  // A login cookie lives exactly as long as the sign-in it carries (LOGIN_TIMEOUT).
  const loginCookieMaxAgeS = Math.max(1, Math.ceil(config.session.loginTimeoutMs / 1000))

  app.get('/auth/login', {
    schema: { tags: ['auth'], summary: 'Start a sign-in (browser navigation)', querystring: LoginQuery, response: { 400: ErrorBody, 429: ErrorBody, 503: ErrorBody } },
    onRequest: app.rateLimitLogin
  }, async (request, reply) => {
    const { query } = request
    const session = request.session as Partial<typeof request.session> | null
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
    const tenant = query.tenant ?? session?.tenant ?? config.defaultTenant
    if (!config.tenants.has(tenant)) {
      throw new AppError('invalid_request', `Unknown tenant ${tenant}.`, { details: { field: 'tenant' } })
    }
    // Re-authorization keeps what the session already has on the same tenant.
    let grantedScopes: string[] = []
    if (session?.grantId !== undefined && session.tenant === tenant) {
      grantedScopes = (await app.grants.read(session.grantId))?.grant.scopes ?? []
    }
    // Only what this deployment may ask for (OAUTH_SCOPES and the scopes its routes require), and
    // what the session already holds: a reauthorize_url repeats the granted scopes, and those may
    // include one the authorization server granted unasked.
    const refused = addedScopes.filter((scope) => !app.requestableScopes.has(scope) && !grantedScopes.includes(scope))
    if (refused.length > 0) {
      throw new AppError('invalid_request', `This site does not ask for the scope ${refused.join(', ')}.`, { details: { field: 'scope', known_scopes: [...app.requestableScopes] } })
    }
    if (!await app.roomForSignIn()) {
      app.metrics.login('refused_full')
      throw new AppError('unavailable', 'No more people can sign in right now; everyone signed in stays so. Try again in a few minutes.', { retryAfter: FULL_RETRY_AFTER_S })
    }
    // Nothing is stored: the transaction goes to the browser, sealed (src/oauth/login-transactions.ts).
    const started = await startSignIn(config, app.authorizationServers, app.loginTransactions, {
      tenant, returnTo, grantedScopes, addedScopes, cookies: request.cookies
    }).catch((error: unknown) => {
      if (!(error instanceof LoginTooLargeError)) throw error
      throw new AppError('invalid_request', 'return_to is too long for a sign-in to carry.', { details: { field: 'return_to' } })
    })
    app.metrics.login('redirected')
    for (const name of started.dropped) reply.clearCookie(name, cookieOptions)
    reply.setCookie(started.cookie.name, started.cookie.value, { ...cookieOptions, maxAge: loginCookieMaxAgeS })
    return await reply.header('cache-control', 'no-store').redirect(started.authorizationUrl, 302)
  })

  app.get('/auth/callback', {
    schema: { tags: ['auth'], summary: 'The redirect URI (browser navigation)', querystring: CallbackQuery },
    // A browser lands here: a malformed query gets the human page, not a JSON error.
    attachValidation: true,
    onRequest: app.rateLimitLogin
  }, async (request, reply) => {
    const { query } = request
    const failPage = async (code: string, outcome: string, status = 400): Promise<never> => {
      app.metrics.callback(outcome)
      return await reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(authErrorPage(code, LOGIN_URL)) as never
    }
    if (request.validationError !== undefined || query.state === undefined) return await failPage('invalid_state', 'invalid_state')
    const state = query.state
    let opened: Awaited<ReturnType<typeof app.loginTransactions.open>>
    try {
      opened = await app.loginTransactions.open(state, request.cookies)
    } catch (error) {
      // Nothing was used up: the same callback URL works once the store is back.
      if (error instanceof StoreUnavailableError) return await failPage('unavailable', 'unavailable', 503)
      throw error
    }
    if (opened.kind === 'other_browser') return await failPage('login_csrf', 'login_csrf')
    if (opened.kind === 'superseded') return await failPage('sign_in_expired', 'superseded')
    if (opened.kind === 'invalid') {
      if (opened.cookieName !== undefined) reply.clearCookie(opened.cookieName, cookieOptions)
      return await failPage('invalid_state', 'invalid_state')
    }
    const { transaction } = opened
    // A Secure cookie is never set over plain http (a proxy not in TRUST_PROXY, say): no session
    // could come of this sign-in, so its code is not even exchanged.
    if (config.session.secureCookie && request.protocol !== 'https') {
      request.log.warn('a sign-in reached media-bff over plain http, where its Secure session cookie cannot be set: is the proxy in TRUST_PROXY, and does it send X-Forwarded-Proto?')
      return await failPage('insecure_transport', 'insecure_transport')
    }
    // Nothing is spent yet: the same callback works once there is room again.
    if (!await app.roomForSignIn()) return await failPage('sign_ins_full', 'refused_full', 503)
    // From here on this sign-in ends, one way or another: its slot is spent.
    const spent = app.loginTransactions.spentValue(opened.cookieName, transaction)
    if (spent === undefined) reply.clearCookie(opened.cookieName, cookieOptions)
    else reply.setCookie(opened.cookieName, spent, { ...cookieOptions, maxAge: loginCookieMaxAgeS })

    const backWithError = async (code: string, outcome: string): Promise<never> => {
      app.metrics.callback(outcome)
      return await reply.header('cache-control', 'no-store').redirect(withAuthError(transaction.returnTo, code), 302) as never
    }
    // RFC 9207, checked before anything else the response says (an error included): a response
    // naming another issuer is a mix-up attack, not an outage; a tenant configured to require
    // `iss` (OAUTH_REQUIRE_ISS) refuses a response without it.
    const tenant = config.tenants.get(transaction.tenant)
    if (query.iss === undefined ? tenant?.requireIss === true : query.iss !== tenant?.issuer) return await backWithError('issuer_mismatch', 'issuer_mismatch')
    if (query.error !== undefined) return await backWithError(/^[a-z_]{1,64}$/.test(query.error) ? query.error : 'server_error', 'error')
    if (query.code === undefined) return await backWithError('invalid_request', 'error')

    let completed
    try {
      completed = await completeSignIn({
        config,
        servers: app.authorizationServers,
        grants: app.grants,
        media: app.media,
        claim: async () => await app.loginTransactions.claim(state, transaction),
        onUserInfoFailure: (error) => request.log.warn({ err: { type: (error as Error).name, message: (error as Error).message } }, 'user/info failed during sign-in')
      }, transaction, state, new URLSearchParams(request.query as Record<string, string>))
    } catch (error) {
      if (error instanceof LoginReplayedError) return await failPage('invalid_state', 'invalid_state')
      // The code is spent; with the store down the grant could not be kept: sign in again later.
      if (error instanceof StoreUnavailableError) return await failPage('unavailable', 'unavailable', 503)
      const failure = classifyTokenError(error)
      if (failure.kind === 'client_rejected') {
        // Our client credentials were refused: every sign-in fails alike until the operator acts.
        request.log.error({ tokenError: failure.error }, 'the token endpoint refused media-bff\'s client credentials (OAUTH_CLIENT_ID / OAUTH_CLIENT_SECRET)')
      } else {
        request.log.warn({ err: { type: (error as Error).name, message: (error as Error).message } }, 'code exchange failed')
      }
      return await backWithError(failure.kind === 'rejected' ? 'token_exchange_failed' : 'unavailable', 'exchange_failed')
    }

    // Decide what carries over from the session this sign-in replaces, then begin the new one.
    const previous = await app.ensureSession(request)
    const signedIn = sessionAfterSignIn(
      { userId: previous.user?.id, tenant: previous.tenant, deniedScopes: previous.deniedScopes, uploadOwner: previous.uploadOwner, name: previous.user?.name, email: previous.user?.email, entitlements: previous.entitlements },
      { grantId: completed.grant.id, grantedScopes: completed.grant.scopes, user: completed.user, deniedScopes: completed.deniedScopes },
      transaction,
      Date.now()
    )
    try {
      await app.beginSession(request, signedIn)
    } catch (error) {
      // A browser navigation: the human page, not a JSON error; the new grant is not kept.
      if (error instanceof StoreUnavailableError) {
        await app.grants.delete(completed.grant.id).catch(() => {})
        return await failPage('unavailable', 'unavailable', 503)
      }
      throw error
    }
    app.metrics.callback('signed_in')
    return await reply.header('cache-control', 'no-store').redirect(transaction.returnTo, 302)
  })

  /** The session as GET /auth/session and the keep-alive answer it; a session whose grant is gone ends here. */
  const sessionState = async (request: FastifyRequest, reply: FastifyReply): Promise<Static<typeof SessionState>> => {
    reply.header('cache-control', 'no-store')
    const { session } = request
    if (session?.grantId === undefined) return { authenticated: false, login_url: LOGIN_URL }
    const stored = await app.grants.read(session.grantId)
    if (stored === undefined) {
      await app.endSignIn(request, reply, 'ended')
      return { authenticated: false, login_url: LOGIN_URL }
    }
    const { grant } = stored
    const authenticatedAt = session.authenticatedAt ?? Date.now()
    const absoluteExpiresAt = authenticatedAt + config.session.absoluteTimeoutMs
    const idleExpiresAt = (session.lastSeen ?? authenticatedAt) + config.session.idleTimeoutMs
    return {
      authenticated: true,
      user: { id: session.user?.id ?? null, name: session.user?.name ?? null, email: session.user?.email ?? null },
      tenant: grant.tenant,
      scopes: grant.scopes,
      expires_at: new Date(Math.min(absoluteExpiresAt, idleExpiresAt)).toISOString(),
      idle_expires_at: new Date(idleExpiresAt).toISOString(),
      absolute_expires_at: new Date(absoluteExpiresAt).toISOString(),
      reauth_required: grant.refreshToken === undefined && grant.expiresAt <= Date.now()
    }
  }

  app.get('/auth/session', {
    schema: { tags: ['auth'], summary: 'Who is signed in, with which scopes, until when; reading it does not count as activity', response: { 200: SessionState, 503: ErrorBody } },
    // Tabs ask this whenever they are looked at again: asking must not keep an idle session alive.
    config: { touchesSession: false }
  }, sessionState)

  app.post('/auth/session/keepalive', {
    schema: { tags: ['auth'], summary: '"Stay signed in": resets the idle timeout (never the absolute one) and answers like GET /auth/session', response: { 200: SessionState, 403: ErrorBody, 503: ErrorBody } }
  }, async (request, reply) => {
    if (request.session?.authenticatedAt !== undefined) request.session.lastSeen = Date.now()
    return await sessionState(request, reply)
  })

  app.post('/auth/logout', {
    schema: { tags: ['auth'], summary: 'Sign out: the session and its grant are destroyed', response: { 200: Type.Object({ logged_out: Type.Literal(true) }), 403: ErrorBody, 503: ErrorBody } }
  }, async (request, reply) => {
    await app.endSignIn(request, reply)
    // The browser's HTTP cache holds this person's relayed answers (private, revalidated, bound
    // to them): drop it, so nothing of theirs is left for whoever uses the browser next. Only
    // "cache": "cookies" or "storage" would also wipe the website's own cookies and storage on
    // this origin (media-bff may share it with the site), which are not ours to clear.
    reply.header('clear-site-data', '"cache"')
    return { logged_out: true as const }
  })
}

export default routes

function withAuthError (returnTo: string, code: string): string {
  const local = returnTo.startsWith('/')
  const url = new URL(returnTo, 'https://return-to.invalid')
  url.searchParams.set('auth_error', code)
  return local ? `${url.pathname}${url.search}${url.hash}` : url.href
}
