// The media service: its API client, its authorization servers (one per tenant), and the token
// refresher that keeps grants usable. All share one undici agent.
import fp from 'fastify-plugin'
import { createMediaClient, type MediaClient } from '../src/media/media-client.js'
import { createAuthorizationServers, refreshTokens, type AuthorizationServers } from '../src/oauth/authorization-server.js'
import { createTokenRefresher, type TokenRefresher } from '../src/grants/token-refresher.js'
import { Agent } from 'undici'

const REFRESH_DEADLINE_MS = 60_000

declare module 'fastify' {
  interface FastifyInstance {
    media: MediaClient
    authorizationServers: AuthorizationServers
    tokens: TokenRefresher
  }
}

export default fp(async (app) => {
  const { config } = app
  const media = createMediaClient({
    timeoutMs: config.upstreamTimeoutMs,
    onCall: (endpoint, status, seconds) => app.metrics.upstreamCall(endpoint, status, seconds)
  })
  const servers = createAuthorizationServers(config, media.dispatcher, config.upstreamTimeoutMs)
  // A refresh is never cut off at the caller's deadline: once the service has answered it has
  // rotated the refresh token, and abandoning that answer would strand the grant on a retired
  // token (the next refresh would look like reuse and end the sign-in). Refreshes therefore run
  // on their own agent with a long deadline and finish in the background; callers wait at most
  // UPSTREAM_TIMEOUT_MS and get 503 if it takes longer.
  const refreshAgent = new Agent({ connections: 16, connectTimeout: config.upstreamTimeoutMs, headersTimeout: REFRESH_DEADLINE_MS, bodyTimeout: REFRESH_DEADLINE_MS })
  const refreshServers = createAuthorizationServers(config, refreshAgent, REFRESH_DEADLINE_MS)
  app.decorate('media', media)
  app.decorate('authorizationServers', servers)
  app.decorate('tokens', createTokenRefresher({
    grants: app.grants,
    store: app.kv,
    skewMs: config.oauth.refreshSkewMs,
    callerWaitMs: config.upstreamTimeoutMs,
    // The lease (15 s by default) outlives a stalled process (GC pause, CPU starvation) by a wide
    // margin and is renewed while the refresh runs; a crashed holder blocks one grant for one lease.
    lockLeaseMs: config.oauth.refreshLockLeaseMs,
    lockRenewEveryMs: Math.min(2_000, config.oauth.refreshLockLeaseMs / 3),
    lockWaitMs: REFRESH_DEADLINE_MS + 5_000,
    refresh: async (tenant, refreshToken) => {
      const server = refreshServers.get(tenant)
      if (server === undefined) throw new Error(`grant bound to unknown tenant ${tenant}`)
      return await refreshTokens(server, refreshToken)
    },
    onRefresh: (outcome, seconds) => app.metrics.refresh(outcome, seconds),
    // Every user is refused alike until the operator acts; single-flight makes this one line per
    // refresh attempt, not one per waiting request.
    onClientRejected: (error) => app.log.error({ tokenError: error }, 'the token endpoint refused media-bff\'s client credentials (OAUTH_CLIENT_ID / OAUTH_CLIENT_SECRET); sessions are kept'),
    onLockWait: (seconds) => app.metrics.lockWait(seconds)
  }))
  app.addHook('onClose', async () => {
    await media.close()
    await refreshAgent.close()
  })
}, { name: 'media', dependencies: ['config', 'stores', 'metrics'] })
