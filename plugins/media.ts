// The media service: its API client, its authorization servers (one per tenant), and the token
// refresher that keeps grants usable. All share one undici agent.
import fp from 'fastify-plugin'
import { createMediaClient, type MediaClient } from '../src/media/media-client.js'
import { createAuthorizationServers, refreshTokens, type AuthorizationServers } from '../src/oauth/authorization-server.js'
import { createTokenRefresher, type TokenRefresher } from '../src/grants/token-refresher.js'

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
  const servers = createAuthorizationServers(config, media.dispatcher)
  app.decorate('media', media)
  app.decorate('authorizationServers', servers)
  app.decorate('tokens', createTokenRefresher({
    grants: app.grants,
    store: app.kv,
    skewMs: config.oauth.refreshSkewMs,
    refresh: async (tenant, refreshToken) => {
      const server = servers.get(tenant)
      if (server === undefined) throw new Error(`grant bound to unknown tenant ${tenant}`)
      return await refreshTokens(server, refreshToken)
    },
    onRefresh: (outcome, seconds) => app.metrics.refresh(outcome, seconds),
    onLockWait: (seconds) => app.metrics.lockWait(seconds)
  }))
  app.addHook('onClose', async () => { await media.close() })
}, { name: 'media', dependencies: ['config', 'stores', 'metrics'] })
