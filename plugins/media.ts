// The media service: its API client, its authorization servers (one per tenant, for code
// exchanges), and its token endpoint for refreshes (used by the grants plugin). Each has an
// undici agent of its own, closed with the app.
import fp from 'fastify-plugin'
import { Agent } from 'undici'
import { createMediaClient, type MediaClient } from '../src/media/media-client.js'
import { createAuthorizationServers, refreshTokens, type AuthorizationServers, type TokenSet } from '../src/oauth/authorization-server.js'
import { TokenEndpointError } from '../src/oauth/token-failure.js'

const REFRESH_DEADLINE_MS = 60_000
/**
 * Connections per tenant for code exchanges. Anyone can bring a callback with a valid sealed
 * transaction and a made-up code, so exchanges get a pool of their own: a flood of them waits
 * for these and never for the connections that registrations, finishes and refreshes use.
 */
const CODE_EXCHANGE_CONNECTIONS = 16

export interface TokenEndpoint {
  /** New tokens for a grant's refresh token (for the request `requestId`); fails with a classified TokenEndpointError. */
  refresh: (tenant: string, refreshToken: string, requestId?: string) => Promise<TokenSet>
  /** How long a refresh may run before it is abandoned. */
  refreshDeadlineMs: number
}

declare module 'fastify' {
  interface FastifyInstance {
    media: MediaClient
    authorizationServers: AuthorizationServers
    tokenEndpoint: TokenEndpoint
  }
}

export default fp(async (app) => {
  const { config } = app
  const media = createMediaClient({
    timeoutMs: config.upstreamTimeoutMs,
    onCall: (endpoint, status, seconds) => app.metrics.upstreamCall(endpoint, status, seconds)
  })
  const signInAgent = new Agent({ connections: CODE_EXCHANGE_CONNECTIONS, connectTimeout: config.upstreamTimeoutMs, headersTimeout: config.upstreamTimeoutMs, bodyTimeout: config.upstreamTimeoutMs })
  const servers = createAuthorizationServers(config, signInAgent, config.upstreamTimeoutMs)
  // A refresh is never cut off at the caller's deadline: once the service has answered it has
  // rotated the refresh token, and abandoning that answer would strand the grant on a retired
  // token (the next refresh would look like reuse and end the sign-in). Refreshes therefore run
  // on their own agent with a long deadline and finish in the background; callers wait at most
  // UPSTREAM_TIMEOUT_MS and get 503 if it takes longer.
  const refreshAgent = new Agent({ connections: 16, connectTimeout: config.upstreamTimeoutMs, headersTimeout: REFRESH_DEADLINE_MS, bodyTimeout: REFRESH_DEADLINE_MS })
  const refreshServers = createAuthorizationServers(config, refreshAgent, REFRESH_DEADLINE_MS)
  app.decorate('media', media)
  app.decorate('authorizationServers', servers)
  app.decorate<TokenEndpoint>('tokenEndpoint', {
    refresh: async (tenant, refreshToken, requestId) => {
      const server = refreshServers.get(tenant)
      // A tenant removed from the configuration: its grants cannot be renewed, ever.
      if (server === undefined) throw new TokenEndpointError({ kind: 'rejected', error: 'unknown_tenant' })
      return await refreshTokens(server, refreshToken, requestId)
    },
    refreshDeadlineMs: REFRESH_DEADLINE_MS
  })
  app.addHook('onClose', async () => {
    await media.close()
    await signInAgent.close()
    await refreshAgent.close()
  })
}, { name: 'media', dependencies: ['config', 'metrics'] })
