// The page a reverse proxy's sub-request asks about, and so where a sign-in it leads to brings the
// person back. nginx auth_request and Traefik's ForwardAuth name it in X-Forwarded-Uri, -Method
// and -Host; Envoy's ext_authz (Envoy Gateway's extAuth) sends the request itself, its method
// kept and its path after /auth/check. Believed only from a proxy of TRUST_PROXY: anyone else
// could name any page, and a sign-in must never bring a person to a place a stranger chose.
import { parseReturnTarget } from '../sign-in/return-to.js'

export interface Site {
  /** PUBLIC_URL's origin: a page there comes back as a path. */
  publicOrigin: string
  /** PUBLIC_URL's origin and ALLOWED_ORIGINS: the only origins a sign-in comes back to. */
  siteOrigins: ReadonlySet<string>
}

/** The request asked about, as far as the proxy said. */
export interface Original {
  uri: string | undefined
  method: string | undefined
  host: string | undefined
}

type Headers = Record<string, string | string[] | undefined>

/** The page as X-Forwarded-Uri, -Method and -Host name it (nginx, Traefik). */
export function forwardedOriginal (headers: Headers): Original {
  return { uri: single(headers['x-forwarded-uri']), method: single(headers['x-forwarded-method']), host: single(headers['x-forwarded-host']) }
}

/**
 * The return target for a sign-in from this check (`original`: undefined from a peer not in
 * TRUST_PROXY): the page asked about when it can be one, else "/". `protocol`: the request's, as
 * Fastify gives it (X-Forwarded-Proto from a trusted proxy).
 */
export function returnTargetOf (original: Original | undefined, protocol: string, site: Site): string {
  if (original === undefined) return '/'
  const { uri, host } = original
  const method = original.method?.toUpperCase()
  // A sign-in can bring a person back to a page, not repeat a form's POST.
  if (uri === undefined || !uri.startsWith('/') || (method !== undefined && method !== 'GET' && method !== 'HEAD')) return '/'
  if (host === undefined) return parseReturnTarget(uri, site.siteOrigins) ?? '/'
  const origin = `${protocol}://${host}`
  if (!site.siteOrigins.has(origin)) return '/'
  return parseReturnTarget(origin === site.publicOrigin ? uri : `${origin}${uri}`, site.siteOrigins) ?? '/'
}

function single (value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}
