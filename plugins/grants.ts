// The signed-in user's grant, for routes: the token refresher (`tokens`), scope requirements
// declared in one place (`requireScopes`), and upstream calls made with a fresh token, retried
// once after a refresh when the service refuses the token (`withAccessToken`).
import fp from 'fastify-plugin'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { AppError, LOGIN_URL, loginRequired } from '../src/errors.js'
import { GrantMissingError } from '../src/grants/grant-errors.js'
import type { Grant, StoredGrant } from '../src/grants/grant-store.js'
import { createTokenRefresher, type TokenRefresher } from '../src/grants/token-refresher.js'
import { withAccessToken } from '../src/grants/with-access-token.js'
import { checkScopes } from '../src/oauth/scope-check.js'
import { safeReturnPath } from '../src/oauth/return-to.js'

/** How long a refresh may take before its caller stops waiting; the refresh itself goes on. */
const LOCK_WAIT_MARGIN_MS = 5_000

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenRefresher
    requireScopes: (...scopes: string[]) => preHandlerAsyncHookHandler
    /**
     * Scopes a sign-in may ask for (`scope=` on /auth/login): OAUTH_SCOPES and every scope some
     * route requires. Complete once the routes are registered, which is before the first request.
     */
    requestableScopes: ReadonlySet<string>
    withAccessToken: <T>(request: FastifyRequest, call: (token: string, grant: Grant) => Promise<T>) => Promise<T>
  }
  interface FastifyRequest {
    /** The grant record as requireScopes read it, reused by withAccessToken. */
    storedGrant?: StoredGrant
  }
}

export default fp(async (app) => {
  const { config } = app
  app.decorate('tokens', createTokenRefresher({
    grants: app.grants,
    store: app.stores.locks,
    refresh: app.tokenEndpoint.refresh,
    skewMs: config.oauth.refreshSkewMs,
    callerWaitMs: config.upstreamTimeoutMs,
    // The lease (15 s by default) outlives a stalled process (GC pause, CPU starvation) by a wide
    // margin and is renewed while the refresh runs; a crashed holder blocks one grant for one lease.
    lockLeaseMs: config.oauth.refreshLockLeaseMs,
    lockRenewEveryMs: Math.min(2_000, config.oauth.refreshLockLeaseMs / 3),
    lockWaitMs: app.tokenEndpoint.refreshDeadlineMs + LOCK_WAIT_MARGIN_MS,
    onRefresh: (outcome, seconds) => app.metrics.refresh(outcome, seconds),
    // Every user is refused alike until the operator acts; single-flight makes this one line per
    // refresh attempt, not one per waiting request.
    onClientRejected: (error) => app.log.error({ tokenError: error }, 'the token endpoint refused media-bff\'s client credentials (OAUTH_CLIENT_ID / OAUTH_CLIENT_SECRET); sessions are kept'),
    onLockWait: (seconds) => app.metrics.lockWait(seconds)
  }))

  app.decorateRequest('storedGrant', undefined)
  const requestable = new Set(config.oauth.scopes)
  app.decorate<ReadonlySet<string>>('requestableScopes', requestable)

  app.decorate('requireScopes', (...required: string[]): preHandlerAsyncHookHandler => {
    for (const scope of required) requestable.add(scope)
    return async function requireScopes (request) {
      const grantId = request.session?.grantId
      if (grantId === undefined) throw loginRequired()
      const stored = await app.grants.read(grantId)
      if (stored === undefined) throw new GrantMissingError()
      const verdict = checkScopes(stored.grant.scopes, required, request.session.deniedScopes)
      if (!verdict.ok && verdict.kind === 'scope_not_granted') {
        throw new AppError('scope_not_granted', `Your account does not have the right to ${verdict.missing.join(', ')}; ask an administrator of the media service.`, {
          details: { required_scopes: verdict.missing }
        })
      }
      if (!verdict.ok) {
        const query = new URLSearchParams({ scope: verdict.reauthorizeScopes.join(' '), return_to: refererPath(request) })
        throw new AppError('insufficient_scope', `This needs your permission for ${verdict.missing.join(', ')}.`, {
          details: { required_scopes: verdict.missing, reauthorize_url: `${LOGIN_URL}?${query.toString()}` }
        })
      }
      request.storedGrant = stored
    }
  })

  app.decorate('withAccessToken', async function <T> (request: FastifyRequest, call: (token: string, grant: Grant) => Promise<T>): Promise<T> {
    const grantId = request.session?.grantId
    if (grantId === undefined) throw new GrantMissingError()
    return await withAccessToken(app.tokens, grantId, call, request.storedGrant)
  })
}, { name: 'grants', dependencies: ['config', 'stores', 'session', 'media', 'metrics'] })

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
