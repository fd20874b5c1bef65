// A sign-in that failed after the browser left for the media service comes back to the page as
// `?auth_error=<code>` (media-bff's callback, src/sign-in/callback.ts): the authorization
// server's own error (RFC 6749, 4.1.2.1), or media-bff's when the answer could not be used.
// readSignInError turns it into an error the page can switch on and show.
import { MediaBffError } from './errors.js'

/**
 * Why a sign-in did not complete. From the authorization server: `access_denied` (the person
 * said no), `invalid_scope`, `unauthorized_client`, `unsupported_response_type`, `server_error`,
 * `temporarily_unavailable`, `invalid_request`. From media-bff: `issuer_mismatch` (the answer came
 * from another issuer than the tenant's: refused), `token_exchange_failed` (the service did not
 * accept the code), `unavailable` (the service could not be reached). `unknown` for any other code.
 */
export type SignInErrorCode =
  | 'access_denied'
  | 'invalid_scope'
  | 'unauthorized_client'
  | 'unsupported_response_type'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_request'
  | 'issuer_mismatch'
  | 'token_exchange_failed'
  | 'unavailable'
  | 'unknown'

const MESSAGES: Record<SignInErrorCode, string> = {
  access_denied: 'Sign-in was cancelled. Nothing was changed.',
  invalid_scope: 'The media service refused a permission this site asked for. Please try again.',
  unauthorized_client: 'The media service does not let this site sign people in. Please tell the site\'s operators.',
  unsupported_response_type: 'The media service does not let this site sign people in. Please tell the site\'s operators.',
  server_error: 'The media service had a problem while signing you in. Please try again.',
  temporarily_unavailable: 'The media service is busy. Please try signing in again in a moment.',
  invalid_request: 'The media service sent back an incomplete answer. Please try again.',
  issuer_mismatch: 'The sign-in answer did not come from the media service it was sent to, so it was refused.',
  token_exchange_failed: 'The media service did not confirm the sign-in. Please try again.',
  unavailable: 'The media service could not be reached to finish signing in. Please try again in a moment.',
  unknown: 'Signing in did not work. Please try again.'
}

/** A sign-in that came back with `auth_error`: `status` 0 (no answer to a call), `message` for people. */
export class SignInError extends MediaBffError {
  declare readonly code: SignInErrorCode

  constructor (code: SignInErrorCode, details: Record<string, unknown> = {}) {
    super(0, code, MESSAGES[code], details)
    this.name = 'SignInError'
  }
}

export interface ReadSignInErrorOptions {
  /**
   * Takes `auth_error` out of this page's address (history.replaceState, the rest of the address
   * and the history state kept), so a reload or a bookmark does not show the failure again.
   */
  removeFromAddressBar?: boolean
}

/**
 * The failed sign-in `address` tells of (default this page's), or undefined when it has no
 * `auth_error`. A code that is not one of SignInErrorCode is `unknown`, with `details.reported`
 * holding it when it is a plain snake_case code (never anything else from the address).
 */
export function readSignInError (address?: string | URL, { removeFromAddressBar = false }: ReadSignInErrorOptions = {}): SignInError | undefined {
  const here = typeof location === 'undefined' ? undefined : location.href
  const from = address ?? here
  if (from === undefined) return undefined
  // Only the query is read: any base resolves a path (there is no page in server rendering).
  const url = new URL(from, here ?? 'https://page.invalid/')
  const reported = url.searchParams.get('auth_error')
  if (reported === null) return undefined
  if (removeFromAddressBar && here !== undefined) {
    const current = new URL(here)
    current.searchParams.delete('auth_error')
    history.replaceState(history.state, '', `${current.pathname}${current.search}${current.hash}`)
  }
  if (Object.hasOwn(MESSAGES, reported)) return new SignInError(reported as SignInErrorCode)
  return new SignInError('unknown', /^[a-z_]{1,64}$/.test(reported) ? { reported } : {})
}
