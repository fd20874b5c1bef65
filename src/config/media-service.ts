// The media service: its tenants (MEDIA_BASE_URL or MEDIA_TENANTS, src/config/tenants.ts), the one
// sign-ins go to when they name none, and whether plain http may reach it (the local emulator).
import type { DeclaredReader } from './declared-reader.js'
import { applyIssRequirement, readTenants, type Tenant } from './tenants.js'

export interface MediaService {
  tenants: Map<string, Tenant>
  defaultTenant: string
  /** Plain http to the authorization server and API (development and the emulator only). */
  allowInsecureRequests: boolean
  upstreamTimeoutMs: number
}

export function readMediaService (read: DeclaredReader, production: boolean): MediaService {
  const tenants = readTenants(read)
  applyIssRequirement(read, tenants, production)
  const defaultTenant = read.raw('MEDIA_DEFAULT_TENANT') ?? tenants.keys().next().value ?? 'default'
  if (tenants.size > 0 && !tenants.has(defaultTenant)) {
    read.problem('MEDIA_DEFAULT_TENANT', `names no tenant of MEDIA_TENANTS (known: ${[...tenants.keys()].join(', ')})`)
  }
  const allowInsecureRequests = read.boolean('ALLOW_INSECURE_UPSTREAM', !production)
  for (const tenant of tenants.values()) {
    const plain = [tenant.baseUrl, tenant.authorizationUrl, tenant.tokenUrl].find((url) => url.startsWith('http:'))
    if (plain !== undefined && !allowInsecureRequests) {
      read.problem(tenants.size > 1 ? 'MEDIA_TENANTS' : 'MEDIA_BASE_URL', `${plain} is plain http; set ALLOW_INSECURE_UPSTREAM=on only for a local emulator`)
    }
  }
  return { tenants, defaultTenant, allowInsecureRequests, upstreamTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS') }
}
