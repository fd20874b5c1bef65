// What a failed call to the token endpoint means for the grant. Only the authorization server
// refusing this grant (invalid_grant) ends it. A refusal of the client itself (invalid_client,
// unauthorized_client, any 401: a secret being rotated, a WAF in front of the endpoint) is the
// operator's problem and would refuse every user alike, so it keeps every grant and is reported
// as an outage. Anything else (network, timeout, 5xx, 429, nonsense) keeps the grant too.
import * as oidc from 'openid-client'
import type { TokenFailure } from './token-failure.js'

const DEFAULT_RETRY_AFTER_S = 5
/** A client-level refusal is not fixed in seconds; callers are asked to come back later. */
const CLIENT_REJECTED_RETRY_AFTER_S = 30

export function classifyTokenError (error: unknown): TokenFailure {
  if (error instanceof oidc.ResponseBodyError) {
    if (error.status === 401 || error.error === 'invalid_client' || error.error === 'unauthorized_client') return clientRejected(error.error)
    if (error.error === 'invalid_grant' && error.status < 500) return { kind: 'rejected', error: error.error }
    return transient(`token endpoint answered ${error.status} ${error.error}`, error.response)
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    if (error.status === 401) return clientRejected('invalid_client')
    return transient(`token endpoint answered ${error.status}`, error.response)
  }
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Response && cause.status === 401) return clientRejected('unauthorized')
  if (cause instanceof Response) return transient(`token endpoint answered ${cause.status}`, cause)
  const name = (error as { name?: string }).name
  if (name === 'TimeoutError' || name === 'AbortError') return transient('token endpoint timed out')
  return transient('token endpoint unreachable or answered nonsense')
}

function clientRejected (error: string): TokenFailure {
  return { kind: 'client_rejected', error, retryAfterSeconds: CLIENT_REJECTED_RETRY_AFTER_S }
}

function transient (reason: string, response?: Response): TokenFailure {
  const header = response?.headers.get('retry-after')
  const seconds = header !== null && header !== undefined && /^\d+$/.test(header) ? Math.min(Number(header), 300) : DEFAULT_RETRY_AFTER_S
  return { kind: 'transient', reason, retryAfterSeconds: Math.max(1, seconds) }
}
