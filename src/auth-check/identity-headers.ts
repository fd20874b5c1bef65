// The headers a check's 2xx carries to the proxy, which hands them to the site's server
// (X-Auth-Request-*, as oauth2-proxy names them, and the assertion). Their values come from the
// media service (a name, an e-mail): a header takes visible ASCII only, so anything else is
// percent-encoded, and a value too long for a header is left out rather than cut. The assertion
// carries every value as it is.
import type { Assertion, Subject } from './assertions.js'

export const ASSERTION_HEADER = 'x-media-bff-assertion'
/** Where to sign in (401) or to give a missing permission (403), for the proxy's error page. */
export const LOGIN_HEADER = 'x-media-bff-login'

/** The longest header value passed on. */
const MAX_VALUE = 1024
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/

/** The identity headers of a signed-in check. */
export function identityHeaders (subject: Subject, assertion: Assertion | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  const put = (name: string, value: string | undefined): void => {
    const safe = value === undefined ? undefined : headerValue(value)
    if (safe !== undefined) headers[name] = safe
  }
  put('x-auth-request-user', subject.userId)
  put('x-auth-request-email', subject.email)
  put('x-auth-request-tenant', subject.tenant)
  put('x-auth-request-scopes', subject.scopes.join(' '))
  if (assertion !== undefined) headers[ASSERTION_HEADER] = assertion.jwt
  return headers
}

/** The value as a header can carry it: as it is when plain, else percent-encoded; undefined when too long or empty. */
export function headerValue (value: string): string | undefined {
  let safe: string
  try {
    safe = PLAIN.test(value) ? value : encodeURIComponent(value)
  } catch {
    // A lone surrogate: no text a person could read.
    return undefined
  }
  return safe === '' || safe.length > MAX_VALUE ? undefined : safe
}
