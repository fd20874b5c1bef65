// The signed-in session's grant, for routes: the scopes a route needs, declared on the route
// (`config: { scopes: [...] }`, as @fastify/rate-limit takes its settings) and enforced by one
// hook attached to that route alone (plugins/route-guards.ts), which hands the route its
// `request.access`: the grant
// as read, its tenant, and the one way to call the service with its token. A sign-in whose grant
// is gone ends here, where that is found out, not in the error handler.
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError, loginRequired, loginUrl } from '../src/errors.js'
import { GrantEndedError, GrantMissingError } from '../src/grants/grant-errors.js'
import { withAccessToken } from '../src/grants/with-access-token.js'
import { checkScopes } from '../src/oauth/scope-check.js'
import { safeReturnPath } from '../src/sign-in/return-to.js'
import type { Access } from '../src/grants/access.js'
import { guardRoute } from './route-guards.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Scopes the signed-in session's grant must hold for this route (empty: signed in with a live
     * grant); request.access is then set. Routes without it are open to anyone.
     */
    scopes?: readonly string[]
  }
  interface FastifyInstance {
    /**
     * What a sign-in may ask for (`scope=` on /auth/login): OAUTH_SCOPES and every scope a route
     * declares (`config: { scopes }`), gathered as the routes are registered, so a route with a
     * new scope needs no second table and its reauthorize_url is always one /auth/login takes.
     */
    requestableScopes: ReadonlySet<string>
  }
  interface FastifyRequest {
    /** Set once the route's `scopes` are checked; see Access. */
    access: Access | undefined
  }
}

export default fp(async (app) => {
  const { config } = app
  /** Ends the sign-in whose grant is gone; the store failing too changes nothing for the answer. */
  const endedWith = async (request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<never> => {
    await app.endSignIn(request, reply, 'grant_gone').catch(() => {})
    throw error
  }

  app.decorateRequest('access', undefined)
  const requestable = new Set(config.oauth.scopes)
  app.decorate('requestableScopes', requestable)
  app.addHook('onRoute', (route) => {
    const required = route.config?.scopes
    if (required === undefined) return
    for (const scope of required) requestable.add(scope)
    guardRoute(route, 'scopes', 'preHandler', (request, reply, done) => { giveAccess(request, reply, required).then(() => { done() }, done) })
  })

  /** Checks the signed-in session's grant against the scopes, and sets request.access. */
  const giveAccess = async (request: FastifyRequest, reply: FastifyReply, required: readonly string[]): Promise<void> => {
    const { signedIn } = request
    if (signedIn === undefined) throw loginRequired(app.config.basePath)
    const stored = await app.grantOf(request)
    const tenant = stored === undefined ? undefined : config.tenants.get(stored.grant.tenant)
    // The grant ended (elsewhere, or it expired), or its tenant left the configuration.
    if (stored === undefined || tenant === undefined) return await endedWith(request, reply, loginRequired(app.config.basePath))
    const verdict = checkScopes(stored.grant.scopes, required, signedIn.deniedScopes)
    if (!verdict.ok && verdict.kind === 'scope_not_granted') {
      throw new AppError('scope_not_granted', `Your account does not have the right to ${verdict.missing.join(', ')}; ask an administrator of the media service.`, {
        details: { required_scopes: verdict.missing }
      })
    }
    if (!verdict.ok) {
      const query = new URLSearchParams({ scope: verdict.reauthorizeScopes.join(' '), return_to: refererPath(request) })
      throw new AppError('insufficient_scope', `This needs your permission for ${verdict.missing.join(', ')}.`, {
        details: { required_scopes: verdict.missing, reauthorize_url: `${loginUrl(app.config.basePath)}?${query.toString()}` }
      })
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
}, { name: 'grants', dependencies: ['config', 'stores', 'session', 'tokens'] })

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
