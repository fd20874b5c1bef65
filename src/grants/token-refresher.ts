// Access tokens for a grant, refreshed ahead of expiry with exactly one refresh per grant at a
// time: in this process by sharing one promise (single-flight), across processes by a lease
// lock in the shared store. Whoever gets the lock re-reads the grant first and skips the refresh
// when another process already did it; everyone else reuses the winner's tokens.
import type { GrantStore, StoredGrant } from './grant-store.js'
import { GrantEndedError, GrantMissingError, RefreshUnavailableError } from './grant-errors.js'
import { withLeaseLock, LockTimeoutError, type HeldLease } from './lease-lock.js'
import type { KeyValueStore } from '../store/key-value-store.js'
import type { TokenSet } from '../oauth/authorization-server.js'
import { TokenEndpointError, type TokenFailure } from '../oauth/token-failure.js'
import { ATTR, inSpan, noteOnCurrentSpan } from '../tracing/spans.js'

export type RefreshOutcome = 'refreshed' | 'reused' | 'rejected' | 'client_rejected' | 'failed'

export interface TokenRefresherOptions {
  grants: GrantStore
  store: KeyValueStore
  /**
   * Calls the tenant's token endpoint, for the request `requestId` (the one that leads the
   * refresh); fails with a TokenEndpointError saying what went wrong.
   */
  refresh: (tenant: string, refreshToken: string, requestId?: string) => Promise<TokenSet>
  /** Refresh this long before the access token expires. */
  skewMs: number
  /** Lease of the cross-process lock; renewed every lockRenewEveryMs while a refresh is in flight. */
  lockLeaseMs?: number
  lockRenewEveryMs?: number
  lockWaitMs?: number
  /**
   * How long a request waits for a refresh before answering 503. The refresh itself goes on and
   * stores the rotated tokens when they arrive; later requests join it.
   */
  callerWaitMs?: number
  onRefresh?: (outcome: RefreshOutcome, seconds: number) => void
  onLockWait?: (seconds: number) => void
  /** The token endpoint refused media-bff itself (invalid_client, a 401): for the operator. */
  onClientRejected?: (error: string) => void
}

/** The lease was lost mid-refresh: another holder may be refreshing; start over behind it. */
class LeaseLostError extends Error {}

/** Anything but a classified failure (a bug, a programming error) keeps the grant: try later. */
const UNREADABLE_FAILURE: TokenFailure = { kind: 'transient', reason: 'the token endpoint call failed', retryAfterSeconds: 5 }

/** How often a refresh that lost its lease starts over before the caller is told to retry. */
const MAX_LEASE_RETRIES = 2

export interface AccessTokenRequest {
  /** The upstream refused this token (401): refresh unless someone already replaced it. */
  rejectedToken?: string
  /** The grant as this request already read it (saves a store round trip when still fresh). */
  current?: StoredGrant
  /** The id of the request asking (src/request-id.ts): a refresh it leads sends it along. */
  requestId?: string
}

export function createTokenRefresher (options: TokenRefresherOptions) {
  const { grants, store, skewMs } = options
  const inFlight = new Map<string, Promise<StoredGrant>>()
  // Also on the span of the request that leads the refresh (the refresh runs in its context).
  const onRefresh = (outcome: RefreshOutcome, seconds: number): void => {
    options.onRefresh?.(outcome, seconds)
    noteOnCurrentSpan({ [ATTR.outcome]: outcome })
  }

  const isFresh = (current: StoredGrant, request: AccessTokenRequest): boolean => {
    if (request.rejectedToken !== undefined) return current.grant.accessToken !== request.rejectedToken
    const { expiresAt, refreshedAt, createdAt } = current.grant
    // A token that lives shorter than the skew would otherwise be refreshed on every call.
    const lifetime = expiresAt - (refreshedAt ?? createdAt)
    return expiresAt - Math.min(skewMs, lifetime / 2) > Date.now()
  }

  async function refreshUnderLock (grantId: string, request: AccessTokenRequest, attempt = 0): Promise<StoredGrant> {
    const started = performance.now()
    try {
      return await withLeaseLock(store, `lock:grant:${grantId}`, async (lease) => {
        // Another process may have refreshed while we waited for the lock.
        const current = await grants.read(grantId)
        if (current === undefined) throw new GrantMissingError()
        if (isFresh(current, request)) {
          onRefresh('reused', (performance.now() - started) / 1000)
          return current
        }
        // Redeeming the refresh token without the lease could redeem it twice (the service then
        // sees reuse and ends the grant): make sure the lease is still ours first.
        if (!await lease.confirm()) throw new LeaseLostError()
        return await redeem(current, started, lease, request.requestId)
      }, {
        leaseMs: options.lockLeaseMs,
        renewEveryMs: options.lockRenewEveryMs,
        waitMs: options.lockWaitMs,
        onWait: (ms: number) => options.onLockWait?.(ms / 1000)
      })
    } catch (error) {
      if (error instanceof LockTimeoutError) throw new RefreshUnavailableError('another refresh of this grant is still running', 2)
      if (error instanceof LeaseLostError) {
        // Queue behind whoever holds the lock now, then reuse its tokens (the re-read above).
        if (attempt < MAX_LEASE_RETRIES) return await refreshUnderLock(grantId, request, attempt + 1)
        throw new RefreshUnavailableError('the refresh lock keeps changing hands', 2)
      }
      throw error
    }
  }

  async function redeem (current: StoredGrant, started: number, lease: HeldLease, requestId: string | undefined): Promise<StoredGrant> {
    const { grant } = current
    if (grant.refreshToken === undefined) {
      await grants.deleteIfUnchanged(current)
      throw new GrantEndedError('no refresh token')
    }
    let tokens: TokenSet
    try {
      tokens = await options.refresh(grant.tenant, grant.refreshToken, requestId)
    } catch (error) {
      const failure: TokenFailure = error instanceof TokenEndpointError ? error.failure : UNREADABLE_FAILURE
      const seconds = (performance.now() - started) / 1000
      if (failure.kind === 'rejected') {
        // A newer record written by another instance (with tokens that still work) is never
        // ended on the strength of our older refresh token: reuse it instead.
        const latest = await grants.read(grant.id)
        if (latest !== undefined && latest.stored !== current.stored) return reuse(latest, started)
        // Nobody has written yet, but if our lease is gone another holder may be redeeming the
        // same refresh token right now (we stalled past the lease): queue behind it instead of
        // ending a grant it is about to renew.
        if (!await lease.confirm()) throw new LeaseLostError()
        onRefresh('rejected', seconds)
        await grants.deleteIfUnchanged(current)
        throw new GrantEndedError(failure.error)
      }
      if (failure.kind === 'client_rejected') {
        onRefresh('client_rejected', seconds)
        options.onClientRejected?.(failure.error)
        throw new RefreshUnavailableError(`the token endpoint refused media-bff's client credentials (${failure.error})`, failure.retryAfterSeconds)
      }
      onRefresh('failed', seconds)
      throw new RefreshUnavailableError(failure.reason, failure.retryAfterSeconds)
    }
    // The lease may have been lost while the service answered (a stall, a slow endpoint):
    // another instance may have written newer tokens, and then those are the ones to use.
    if (!await lease.confirm()) {
      const latest = await grants.read(grant.id)
      if (latest === undefined) throw new GrantMissingError()
      if (latest.stored !== current.stored) return reuse(latest, started)
      // Nobody wrote: ours are the only live tokens (the old refresh token may be retired now),
      // so they are written, still by compare-and-set.
    }
    const next = await grants.replace(current, {
      accessToken: tokens.accessToken,
      // The service may rotate refresh tokens; keep the old one only when it sent none.
      refreshToken: tokens.refreshToken ?? grant.refreshToken,
      expiresAt: tokens.expiresAt,
      scopes: tokens.grantedScopes ?? grant.scopes,
      refreshedAt: Date.now()
    })
    if (next === undefined) {
      // Someone else wrote the grant (or logged out) while we refreshed. Never delete what they
      // wrote: reuse their tokens, or report the sign-in gone if the record is.
      const latest = await grants.read(grant.id)
      if (latest === undefined) throw new GrantMissingError()
      return reuse(latest, started)
    }
    onRefresh('refreshed', (performance.now() - started) / 1000)
    return next
  }

  function reuse (latest: StoredGrant, started: number): StoredGrant {
    onRefresh('reused', (performance.now() - started) / 1000)
    return latest
  }

  return {
    /** A grant whose access token is usable now, refreshing it first when needed. */
    async accessToken (grantId: string, request: AccessTokenRequest = {}): Promise<StoredGrant> {
      const current = request.current ?? await grants.read(grantId)
      if (current === undefined) throw new GrantMissingError()
      if (isFresh(current, request)) return current
      // A span for each request that needs a refresh: the one that leads the single flight (and
      // calls the token endpoint, in its span) and every one that joins it.
      return await inSpan('token refresh', { [ATTR.tenant]: current.grant.tenant }, async (span) => {
        let flight = inFlight.get(grantId)
        span.setAttribute(ATTR.singleFlight, flight === undefined ? 'led' : 'joined')
        if (flight === undefined) {
          flight = refreshUnderLock(grantId, request).finally(() => inFlight.delete(grantId))
          // Nobody may be waiting any more when it settles; its outcome is in the store either way.
          flight.catch(() => {})
          inFlight.set(grantId, flight)
        }
        return await waitAtMost(flight, options.callerWaitMs)
      })
    }
  }
}

export type TokenRefresher = ReturnType<typeof createTokenRefresher>

async function waitAtMost<T> (promise: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return await promise
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new RefreshUnavailableError('the token endpoint is slow; the refresh goes on', 2)) }, ms)
  })
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}
