// What a failed call to the token endpoint means for the grant. Only an explicit rejection of
// the grant or the client ends it; anything else (network, timeout, 5xx, 429, nonsense) keeps
// it, so an outage never signs anyone out.
import * as oidc from 'openid-client'

export type TokenFailure =
  | { kind: 'rejected', error: string }
  | { kind: 'transient', reason: string, retryAfterSeconds: number }

const GRANT_ENDING_ERRORS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client'])
const DEFAULT_RETRY_AFTER_S = 5

export function classifyTokenError (error: unknown): TokenFailure {
  if (error instanceof oidc.ResponseBodyError) {
    if (GRANT_ENDING_ERRORS.has(error.error) && error.status < 500) return { kind: 'rejected', error: error.error }
    return transient(`token endpoint answered ${error.status} ${error.error}`, error.response)
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    // A 401 challenge from the token endpoint is client authentication failing.
    if (error.status === 401) return { kind: 'rejected', error: 'invalid_client' }
    return transient(`token endpoint answered ${error.status}`, error.response)
  }
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Response) return transient(`token endpoint answered ${cause.status}`, cause)
  const name = (error as { name?: string }).name
  if (name === 'TimeoutError' || name === 'AbortError') return transient('token endpoint timed out')
  return transient('token endpoint unreachable or answered nonsense')
}

function transient (reason: string, response?: Response): TokenFailure {
  const header = response?.headers.get('retry-after')
  const seconds = header !== null && header !== undefined && /^\d+$/.test(header) ? Math.min(Number(header), 300) : DEFAULT_RETRY_AFTER_S
  return { kind: 'transient', reason, retryAfterSeconds: Math.max(1, seconds) }
}
