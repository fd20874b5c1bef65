// The headers a check's 2xx carries to the proxy, which hands them to the site's server
// (X-Auth-Request-*, as oauth2-proxy names them, and the assertion). Every one is always sent,
// empty when there is nothing to say: a proxy that copies them onto the request (Envoy's
// ext_authz) then replaces whatever a client sent under those names. Their values come from the
// media service (a name, an e-mail): a header takes visible ASCII only, so anything else (and %)
// is percent-encoded, and a value too long for a header is left empty rather than cut. The
// assertion carries every value as it is.
import type { Assertion, Subject } from './assertions.js'

export const ASSERTION_HEADER = 'x-media-bff-assertion'
/** Where to sign in (401) or to give a missing permission (403), for the proxy's error page. */
export const LOGIN_HEADER = 'x-media-bff-login'

/** The longest header value passed on. */
const MAX_VALUE = 1024
// Visible ASCII and inner spaces, but no %: a value with one is encoded too (%25), so a server
// that decodes cannot mistake a literal %41 for an encoded A.
const PLAIN = /^[\x21-\x24\x26-\x7e](?:[\x20-\x24\x26-\x7e]*[\x21-\x24\x26-\x7e])?$/

/** The headers a signed-in check answers with, each always there (src/contract/site-servers.ts). */
export const IDENTITY_HEADERS = ['x-auth-request-user', 'x-auth-request-email', 'x-auth-request-tenant', 'x-auth-request-scopes', ASSERTION_HEADER] as const

/** The identity headers of a signed-in check. */
export function identityHeaders (subject: Subject, assertion: Assertion | undefined): Record<typeof IDENTITY_HEADERS[number], string> {
  const value = (text: string | undefined): string => text === undefined ? '' : headerValue(text) ?? ''
  return {
    'x-auth-request-user': value(subject.userId),
    'x-auth-request-email': value(subject.email),
    'x-auth-request-tenant': value(subject.tenant),
    'x-auth-request-scopes': value(subject.scopes.join(' ')),
    [ASSERTION_HEADER]: assertion?.jwt ?? ''
  }
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
