// Access tokens for grants, refreshed ahead of expiry with exactly one refresh per grant at a time,
// in this process and across instances (src/grants/token-refresher.ts): for every call made on
// someone's behalf, a request's (plugins/gate.ts) or a webhook follow-up's
// (plugins/live-updates.ts).
import fp from 'fastify-plugin'
import { createTokenRefresher, type TokenRefresher } from '../src/grants/token-refresher.js'

/** How long a refresh may take before its caller stops waiting; the refresh itself goes on. */
const LOCK_WAIT_MARGIN_MS = 5_000

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenRefresher
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
}, { name: 'tokens', dependencies: ['config', 'stores', 'media', 'metrics', 'session'] })
