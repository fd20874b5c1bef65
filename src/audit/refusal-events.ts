// Which refusals are security events (src/audit/audit-events.ts): worked out from the failure and
// the contract's answer to it, in the one place every failure passes (plugins/errors.ts).
import type { AppError } from '../errors.js'
import { GrantEndedError, RefreshUnavailableError } from '../grants/grant-errors.js'
import { UrlRefusedError } from '../media/upstream-error.js'
import { RelayInputError } from '../relay/upstream-request.js'
import type { AuditDetails, AuditEvent } from './audit-events.js'

export interface Recorded { event: AuditEvent, details: AuditDetails }

/** The event a failure answered with `answer` is, if any. */
export function refusalEvent (failure: unknown, answer: AppError): Recorded | undefined {
  if (failure instanceof UrlRefusedError) return { event: 'url_refused', details: { reason: failure.message } }
  if (failure instanceof GrantEndedError) return { event: 'refresh_failed', details: { reason: 'reauth_required' } }
  if (failure instanceof RefreshUnavailableError) return { event: 'refresh_failed', details: { reason: 'unavailable' } }
  if (failure instanceof RelayInputError) return { event: 'relay_refused', details: { reason: 'invalid_input', field: failure.field } }
  if (answer.code === 'csrf_failed') return { event: 'proof_refused', details: { reason: 'csrf_failed' } }
  if (answer.code === 'reauth_required' && answer.details.reason === 'recent_sign_in') return { event: 'recent_sign_in_required', details: {} }
  if (answer.code === 'insufficient_scope' || answer.code === 'scope_not_granted') {
    const missing = answer.details.required_scopes
    return { event: 'scope_refused', details: { reason: answer.code, scopes: Array.isArray(missing) ? missing.filter((scope): scope is string => typeof scope === 'string') : [] } }
  }
  return undefined
}

/** A call under /api/ that no relayed operation takes: the relay's allowlist refused it. */
export function unrelayedEvent (path: string, basePath: string): Recorded | undefined {
  return path.startsWith(`${basePath}/api/`) || path === `${basePath}/api` ? { event: 'relay_refused', details: { reason: 'not_relayed' } } : undefined
}
