// The page a reverse proxy's sub-request asks about (X-Forwarded-Uri, -Host and -Method, as nginx
// auth_request, Envoy's ext_authz and Traefik's ForwardAuth send them), and so where a sign-in it
// leads to brings the person back. Believed only from a proxy of TRUST_PROXY: anyone else could
// name any page, and a sign-in must never bring a person to a place a stranger chose.
import { parseReturnTarget } from '../sign-in/return-to.js'

export interface Site {
  /** PUBLIC_URL's origin: a page there comes back as a path. */
  publicOrigin: string
  /** PUBLIC_URL's origin and ALLOWED_ORIGINS: the only origins a sign-in comes back to. */
  siteOrigins: ReadonlySet<string>
}

export interface Asked {
  headers: Record<string, string | string[] | undefined>
  /** The request's protocol as Fastify gives it (X-Forwarded-Proto from a trusted proxy). */
  protocol: string
  fromTrustedProxy: boolean
}

/** The return target for a sign-in from this check: the page asked about when it can be one, else "/". */
export function returnTargetOf ({ headers, protocol, fromTrustedProxy }: Asked, site: Site): string {
  if (!fromTrustedProxy) return '/'
  const uri = single(headers['x-forwarded-uri'])
  const method = single(headers['x-forwarded-method'])?.toUpperCase()
  const host = single(headers['x-forwarded-host'])
  // A sign-in can bring a person back to a page, not repeat a form's POST.
  if (uri === undefined || (method !== undefined && method !== 'GET' && method !== 'HEAD')) return '/'
  if (!uri.startsWith('/')) return '/'
  if (host === undefined) return parseReturnTarget(uri, site.siteOrigins) ?? '/'
  const origin = `${protocol}://${host}`
  if (!site.siteOrigins.has(origin)) return '/'
  const target = parseReturnTarget(origin === site.publicOrigin ? uri : `${origin}${uri}`, site.siteOrigins)
  return target ?? '/'
}

function single (value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}
