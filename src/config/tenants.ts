// The tenants of MEDIA_BASE_URL or MEDIA_TENANTS, with their OAuth endpoints and issuer, as
// src/config/config.ts reads them.
import type { DeclaredReader } from './declared-reader.js'

export interface Tenant {
  name: string
  /** The tenant's channel URL; the API is at `${baseUrl}/api`. */
  baseUrl: string
  apiUrl: string
  authorizationUrl: string
  tokenUrl: string
  issuer: string
  /** RFC 9207: the authorization response must carry `iss` (OAUTH_REQUIRE_ISS). */
  requireIss: boolean
}

export function readTenants (read: DeclaredReader): Map<string, Tenant> {
  const tenants = new Map<string, Tenant>()
  const single = read.raw('MEDIA_BASE_URL')
  const many = read.list('MEDIA_TENANTS')
  if (single !== undefined && many.length > 0) {
    read.problem('MEDIA_TENANTS', 'set either MEDIA_BASE_URL (one tenant) or MEDIA_TENANTS (name=url,...), not both')
  }
  const entries: Array<[string, string | undefined, string]> = many.length > 0
    ? many.map((item) => {
      const at = item.indexOf('=')
      return [item.slice(0, at).trim(), at > 0 ? item.slice(at + 1).trim() : undefined, 'MEDIA_TENANTS']
    })
    : [['default', single, 'MEDIA_BASE_URL']]

  if (many.length === 0 && single === undefined) {
    read.problem('MEDIA_BASE_URL', 'is required (the tenant\'s channel URL), or set MEDIA_TENANTS')
    return tenants
  }
  for (const [name, value, variable] of entries) {
    if (!/^[a-z0-9][a-z0-9_-]{0,62}$/i.test(name)) {
      read.problem(variable, `tenant "${name}" needs a name of letters, digits, _ and - (name=url)`)
      continue
    }
    if (tenants.has(name)) read.problem(variable, `tenant "${name}" is listed twice`)
    const baseUrl = read.url(variable, value ?? '')
    if (baseUrl === undefined) continue
    // The channel's URL is what the service's address bar shows; its API is below it, at /api.
    // Given the API's own URL, every call would go to /api/api.
    if (new URL(baseUrl).pathname.endsWith('/api')) {
      read.problem(variable, `tenant "${name}": ${baseUrl} ends in /api; give the channel's URL without it (media-bff adds /api)`)
      continue
    }
    const fill = (template: string | undefined, fallback: string): string => template === undefined ? fallback : template.replaceAll('{base_url}', baseUrl)
    tenants.set(name, {
      name,
      baseUrl,
      apiUrl: `${baseUrl}/api`,
      authorizationUrl: read.url('OAUTH_AUTHORIZATION_URL', fill(read.raw('OAUTH_AUTHORIZATION_URL'), `${baseUrl}/api/oauth2/authorize`)) ?? '',
      tokenUrl: read.url('OAUTH_TOKEN_URL', fill(read.raw('OAUTH_TOKEN_URL'), `${baseUrl}/api/oauth2/token`)) ?? '',
      issuer: fill(read.raw('OAUTH_ISSUER'), baseUrl),
      requireIss: false
    })
  }
  return tenants
}

/**
 * OAUTH_REQUIRE_ISS: on (every tenant), off, or a comma list of tenant names. Several tenants share
 * one client and its one redirect URI, so a callback cannot tell by its address which tenant's
 * authorization server sent it: RFC 9700 (§4.4, mix-up attacks) then asks for the RFC 9207 `iss`
 * of every authorization response. With several tenants, a setting left unset is refused in
 * production (an `off` there is the operator's explicit choice) and warned about elsewhere, and
 * tenants left without it are named at start.
 */
export function applyIssRequirement (read: DeclaredReader, tenants: Map<string, Tenant>, production: boolean): void {
  const setting = read.list('OAUTH_REQUIRE_ISS')
  const everyTenant = setting.length === 1 ? { on: true, true: true, 1: true, yes: true, off: false, false: false, 0: false, no: false }[setting[0]?.toLowerCase() ?? ''] : undefined
  if (everyTenant !== undefined) {
    for (const tenant of tenants.values()) tenant.requireIss = everyTenant
  } else {
    for (const name of setting) {
      const tenant = tenants.get(name)
      if (tenant === undefined) read.problem('OAUTH_REQUIRE_ISS', `names no tenant "${name}" (on, off, or tenant names)`)
      else tenant.requireIss = true
    }
  }
  const unchecked = [...tenants.values()].filter((tenant) => !tenant.requireIss).map((tenant) => tenant.name)
  if (tenants.size < 2 || unchecked.length === 0) return
  const why = `${tenants.size} tenants share one client and one redirect URI, and the sign-ins of ${unchecked.join(', ')} need not carry iss (RFC 9207): nothing then tells a callback which authorization server sent it, which RFC 9700 (mix-up attacks) asks for. Set OAUTH_REQUIRE_ISS=on when the service sends iss`
  if (setting.length === 0 && production) read.problem('OAUTH_REQUIRE_ISS', `${why}; or OAUTH_REQUIRE_ISS=off to accept the risk (NODE_ENV=production)`)
  else read.warn('OAUTH_REQUIRE_ISS', why)
}
