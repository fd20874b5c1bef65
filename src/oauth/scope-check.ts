// Whether a grant may be used for something that needs `required` scopes, and if not, which of
// the two answers the contract gives: ask the user for the scope (insufficient_scope, with the
// scopes a re-authorization should request), or, when a re-authorization already came back
// without it, say the account lacks the right (scope_not_granted) and stop asking.
import { missingScopes, unionScopes } from '../scopes.js'
import { AppError } from '../errors.js'

export type ScopeVerdict =
  | { ok: true }
  | { ok: false, kind: 'scope_not_granted', missing: string[] }
  | { ok: false, kind: 'insufficient_scope', missing: string[], reauthorizeScopes: string[] }

export function checkScopes (granted: readonly string[], required: readonly string[], denied: readonly string[] = []): ScopeVerdict {
  const missing = missingScopes(granted, required)
  if (missing.length === 0) return { ok: true }
  if (missing.every((scope) => denied.includes(scope))) return { ok: false, kind: 'scope_not_granted', missing }
  return { ok: false, kind: 'insufficient_scope', missing, reauthorizeScopes: unionScopes(granted, required) }
}

/**
 * The contract's 403 for a grant without the scopes: `insufficient_scope` with the URL that asks
 * the person for them (`reauthorizeUrl`, given the scopes to request), or `scope_not_granted`.
 */
export function scopeRefusal (verdict: Exclude<ScopeVerdict, { ok: true }>, reauthorizeUrl: (scopes: readonly string[]) => string): AppError {
  if (verdict.kind === 'scope_not_granted') {
    return new AppError('scope_not_granted', `Your account does not have the right to ${verdict.missing.join(', ')}; ask an administrator of the media service.`, {
      details: { required_scopes: verdict.missing }
    })
  }
  return new AppError('insufficient_scope', `This needs your permission for ${verdict.missing.join(', ')}.`, {
    details: { required_scopes: verdict.missing, reauthorize_url: reauthorizeUrl(verdict.reauthorizeScopes) }
  })
}
