// Live updates: the media service's webhooks (their keys per tenant, where they are posted, how
// long a follow-up may go unfinished before another instance takes it) and the live channels.
import type { DeclaredReader } from './declared-reader.js'
import type { Tenant } from './tenants.js'

export interface WebhookSettings {
  path: string
  keys: ReadonlyMap<string, readonly string[]>
  perMinute: number
  /** On Redis: how long a follow-up an instance took may go unclaimed before another takes it over. */
  takeoverAfterMs: number
}

export interface EventSettings { maxStreams: number, maxPerPerson: number, heartbeatMs: number }

export function readWebhookSettings (read: DeclaredReader, tenants: ReadonlyMap<string, Tenant>, defaultTenant: string): WebhookSettings {
  return {
    path: readWebhookPath(read),
    keys: readWebhookKeys(read, tenants, defaultTenant),
    perMinute: read.integer('RATE_LIMIT_WEBHOOKS_PER_MINUTE'),
    takeoverAfterMs: read.duration('WEBHOOK_TAKEOVER_AFTER')
  }
}

export function readEventSettings (read: DeclaredReader): EventSettings {
  return {
    maxStreams: read.integer('EVENTS_MAX_STREAMS'),
    // A person's tabs in all their browsers: ample for one person, and a small share of an
    // instance, so a few accounts cannot fill it.
    maxPerPerson: read.integer('EVENTS_MAX_PER_PERSON'),
    // Under the read timeout of every proxy on the way (docker/nginx.conf's is 45 s, nginx's
    // default 60 s), and not so often that thousands of idle channels cost real CPU.
    heartbeatMs: read.duration('EVENTS_HEARTBEAT')
  }
}

const MIN_WEBHOOK_KEY_LENGTH = 16

/**
 * WEBHOOK_KEYS: the key of each webhook endpoint configured at the service, `key` for the one
 * (default) tenant or `tenant:key,...`; several keys of one tenant all verify (rotation).
 */
function readWebhookKeys (read: DeclaredReader, tenants: ReadonlyMap<string, Tenant>, defaultTenant: string): Map<string, string[]> {
  const keys = new Map<string, string[]>()
  for (const [index, entry] of read.list('WEBHOOK_KEYS').entries()) {
    const colon = entry.indexOf(':')
    const [tenant, key] = colon < 0 ? [defaultTenant, entry] : [entry.slice(0, colon), entry.slice(colon + 1)]
    // `north=key`, as MEDIA_TENANTS writes its pairs, would otherwise be one key of the default
    // tenant, and every webhook of north refused.
    const equals = entry.indexOf('=')
    if (colon < 0 && equals > 0 && tenants.has(entry.slice(0, equals))) read.problem('WEBHOOK_KEYS', `"${entry.slice(0, equals)}=..." names a tenant with "="; write ${entry.slice(0, equals)}:key`)
    // What comes before the ":" may be the start of a key that holds one: it is never printed.
    else if (!tenants.has(tenant)) read.problem('WEBHOOK_KEYS', `entry ${index + 1} names no tenant of the configuration before its first ":" (tenants: ${[...tenants.keys()].join(', ')}); a key that holds a ":" is written with its tenant in front, ${defaultTenant}:<key>`)
    else if (key.length < MIN_WEBHOOK_KEY_LENGTH) read.problem('WEBHOOK_KEYS', `a key of ${tenant} is shorter than ${MIN_WEBHOOK_KEY_LENGTH} characters`)
    else keys.set(tenant, [...(keys.get(tenant) ?? []), key])
  }
  return keys
}

function readWebhookPath (read: DeclaredReader): string {
  const path = read.string('WEBHOOK_PATH')
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path) || path.startsWith('/api/') || path.startsWith('/auth/')) {
    read.problem('WEBHOOK_PATH', 'must be a plain path such as /webhooks/media, outside /api/ and /auth/')
  }
  return path
}
