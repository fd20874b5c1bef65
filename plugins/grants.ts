// Access to the signed-in user's grant from routes: scope requirements declared in one place
// (`requireScopes`) and upstream calls made with a fresh token, retried once after a refresh
// when the service refuses the token.
import fp from 'fastify-plugin'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { AppError } from '../src/errors.js'
import { GrantMissingError } from '../src/grants/grant-errors.js'
import type { Grant, StoredGrant } from '../src/grants/grant-store.js'
import { UpstreamError } from '../src/media/upstream-error.js'
import { missingScopes, unionScopes } from '../src/oauth/scopes.js'
import { safeReturnPath } from '../src/oauth/return-to.js'
import { LOGIN_URL } from './errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    requireScopes: (...scopes: string[]) => preHandlerAsyncHookHandler
    /**
     * Scopes a sign-in may ask for (`scope=` on /auth/login): OAUTH_SCOPES and every scope some
     * route requires. Complete once the routes are registered, which is before the first request.
     */
    requestableScopes: ReadonlySet<string>
    withAccessToken: <T>(request: FastifyRequest, call: (token: string, grant: Grant) => Promise<T>) => Promise<T>
  }
  interface FastifyRequest {
    grant?: Grant
    /** The grant record as requireScopes read it, reused by withAccessToken. */
    storedGrant?: StoredGrant
  }
}

export default fp(async (app) => {
  app.decorateRequest('grant', undefined)
  app.decorateRequest('storedGrant', undefined)

  const requestable = new Set(app.config.oauth.scopes)
  app.decorate<ReadonlySet<string>>('requestableScopes', requestable)

  app.decorate('requireScopes', (...required: string[]): preHandlerAsyncHookHandler => {
    for (const scope of required) requestable.add(scope)
    return async function requireScopes (request) {
      const grantId = request.session?.grantId
      if (grantId === undefined) {
        throw new AppError('login_required', 'Please sign in.', { details: { login_url: LOGIN_URL } })
      }
      const stored = await app.grants.read(grantId)
      if (stored === undefined) throw new GrantMissingError()
      const missing = missingScopes(stored.grant.scopes, required)
      if (missing.length > 0) {
        const denied = request.session.deniedScopes ?? []
        if (missing.every((scope) => denied.includes(scope))) {
          throw new AppError('scope_not_granted', `Your account does not have the right to ${missing.join(', ')}; ask an administrator of the media service.`, {
            details: { required_scopes: missing }
          })
        }
        const scope = unionScopes(stored.grant.scopes, required).join(' ')
        const returnTo = refererPath(request)
        throw new AppError('insufficient_scope', `This needs your permission for ${missing.join(', ')}.`, {
          details: {
            required_scopes: missing,
            reauthorize_url: `${LOGIN_URL}?${new URLSearchParams({ scope, return_to: returnTo }).toString()}`
          }
        })
      }
      request.grant = stored.grant
      request.storedGrant = stored
    }
  })

  app.decorate('withAccessToken', async function withAccessToken<T> (request: FastifyRequest, call: (token: string, grant: Grant) => Promise<T>): Promise<T> {
    const grantId = request.session?.grantId
    if (grantId === undefined) throw new GrantMissingError()
    const first = await app.tokens.accessToken(grantId, { current: request.storedGrant })
    try {
      return await call(first.grant.accessToken, first.grant)
    } catch (error) {
      if (!(error instanceof UpstreamError) || !error.isUnauthorized) throw error
      // The service refused the token before its expiry: refresh once (unless another request
      // already did) and try again.
      const second = await app.tokens.accessToken(grantId, { rejectedToken: first.grant.accessToken })
      return await call(second.grant.accessToken, second.grant)
    }
  })
}, { name: 'grants', dependencies: ['config', 'stores', 'session', 'media'] })

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
