// The whole configuration of media-bff, read from the environment (README.md, "Configuration") and
// validated once at start. loadConfig throws one ConfigError naming every bad variable.
import { readFileSync } from 'node:fs'
import { EnvReader, type Env } from './env-reader.js'
import { applyIssRequirement, readTenants, type Tenant } from './config-tenants.js'
import { readMount } from './config-mount.js'
import { readTracing, type TracingConfig } from './config-tracing.js'
import { readRollingUpgrade, type RollingUpgrade } from './config-rolling-upgrade.js'
import { isSameSite, siteOf } from './same-site.js'
import { isAddressOrCidr, trustsEveryone } from './trusted-proxies.js'
import { parseTokenKeys, type TokenKey } from './store/token-cipher.js'
import { parseRedisUrl, RedisUrlError } from './store/redis-url.js'
import { KNOWN_SCOPES, parseScopes } from './scopes.js'
import { MAX_SLOTS } from './sign-in/login-transactions.js'

export type { Tenant } from './config-tenants.js'

export type TokenAuthMethod = 'client_secret_post' | 'client_secret_basic'

export interface Config {
  publicUrl: string
  publicOrigin: string
  /** Settings that work but are likely mistakes: each logged once at start (plugins/config.ts). */
  warnings: readonly string[]
  /** '' or a path such as /media-bff: where media-bff answers on PUBLIC_URL's origin (BASE_PATH). */
  basePath: string
  host: string
  port: number
  logLevel: string
  /** OpenTelemetry tracing: on only when the standard OTEL_* variables name an OTLP endpoint. */
  tracing: TracingConfig
  /** CIDRs / addresses of the reverse proxies whose X-Forwarded-* headers are believed. */
  trustProxy: string[]
  /** Origins allowed to call state-changing routes (PUBLIC_URL's origin is always allowed). */
  allowedOrigins: string[]
  tenants: ReadonlyMap<string, Tenant>
  defaultTenant: string
  oauth: {
    clientId: string
    clientSecret: string
    scopes: string[]
    tokenAuthMethod: TokenAuthMethod
    redirectUri: string
    /** The callback route's path below basePath: OAUTH_REDIRECT_URI's own (src/config-mount.ts). */
    callbackPath: string
    /** Plain http to the authorization server and API (development and the emulator only). */
    allowInsecureRequests: boolean
    refreshSkewMs: number
    /** Lease of the cross-instance refresh lock, renewed while a refresh runs. */
    refreshLockLeaseMs: number
  }
  session: {
    cookieName: string
    /** While a rolling upgrade from 0.1.0 runs (ROLLING_UPGRADE_FROM_0_1): that version's cookie name, and until when. */
    rollingUpgrade: RollingUpgrade | undefined
    /** Secure cookie and __Host-Http- prefix; only dropped for a plain-http PUBLIC_URL. */
    secureCookie: boolean
    secrets: string[]
    idleTimeoutMs: number
    absoluteTimeoutMs: number
    /** How long a started sign-in may take before its transaction expires. */
    loginTimeoutMs: number
    /** Open login transactions one browser may hold at once (one per tab). */
    maxLoginsPerBrowser: number
  }
  tokenKeys: TokenKey[]
  redisUrl: string | undefined
  redisKeyPrefix: string
  /** Without Redis: sign-ins held at once before a new one is refused (the in-memory stores are sized from it). */
  memoryMaxSessions: number
  /** PEM certificates to trust for Redis over TLS (REDIS_TLS_CA_FILE): a private CA; the system's otherwise. */
  redisTlsCa: string | undefined
  upload: {
    allowedHosts: string[]
    maxFilesize: number | undefined
    maxFiles: number | undefined
    maxSize: number | undefined
    fileExtensions: string[] | undefined
  }
  upstreamTimeoutMs: number
  /** Relayed calls one signed-in user may have in flight on one instance. */
  relayMaxInFlightPerUser: number
  bodyLimit: number
  rateLimit: { loginPerMinute: number, registerPerMinute: number, finishPerMinute: number, apiPerMinute: number, sessionsPerMinute: number, eventsPerMinute: number }
  demoSite: boolean
  /** When set, GET /metrics and /docs answer only `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined
  /** When set, the operators' endpoints exist (/operator/...), only for `Authorization: Bearer <operatorToken>`. */
  operatorToken: string | undefined
  /** The media service's webhooks: where they are received, and each tenant's keys (none: off). */
  webhooks: {
    path: string
    keys: ReadonlyMap<string, readonly string[]>
    perMinute: number
    /** On Redis: how long a follow-up an instance took may go unclaimed before another takes it over. */
    takeoverAfterMs: number
  }
  /** The live channel (GET /events): how many this instance holds at most, how often it says it is alive. */
  events: { maxStreams: number, maxPerPerson: number, heartbeatMs: number }
}

export class ConfigError extends Error {
  constructor (readonly problems: string[]) {
    super(`media-bff cannot start, the configuration has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

const MIN_SECRET_LENGTH = 32

/** Variables that hold secrets: each must be the secret itself, not the command that makes one. */
export const SECRET_VARIABLES = ['SESSION_SECRETS', 'TOKEN_KEYS', 'OAUTH_CLIENT_SECRET', 'METRICS_TOKEN', 'OPERATOR_TOKEN', 'WEBHOOK_KEYS'] as const

/** Variables that may come from a file NAME_FILE names: the secrets, and REDIS_URL, which carries Redis's password. */
export const FILE_VARIABLES = [...SECRET_VARIABLES, 'REDIS_URL'] as const

export function loadConfig (env: Env = process.env): Config {
  const read = new EnvReader(env)
  read.readFromFiles(FILE_VARIABLES)
  read.refuseUnexpanded(SECRET_VARIABLES)

  const publicUrlSetting = read.url('PUBLIC_URL', read.required('PUBLIC_URL', 'the address browsers use, e.g. https://media.example.org'))
  const publicUrl = publicUrlSetting ?? 'http://invalid'
  const publicOrigin = new URL(publicUrl).origin
  const isHttpsPublic = publicUrl.startsWith('https:')
  const production = env.NODE_ENV === 'production'

  const tenants = readTenants(read)
  applyIssRequirement(read, tenants, production)
  const defaultTenant = read.string('MEDIA_DEFAULT_TENANT', tenants.keys().next().value ?? 'default')
  if (tenants.size > 0 && !tenants.has(defaultTenant)) {
    read.problem('MEDIA_DEFAULT_TENANT', `names no tenant of MEDIA_TENANTS (known: ${[...tenants.keys()].join(', ')})`)
  }

  const allowInsecureRequests = read.boolean('ALLOW_INSECURE_UPSTREAM', !production)
  for (const tenant of tenants.values()) {
    for (const url of [tenant.baseUrl, tenant.authorizationUrl, tenant.tokenUrl]) {
      if (url.startsWith('http:') && !allowInsecureRequests) {
        read.problem(tenants.size > 1 ? 'MEDIA_TENANTS' : 'MEDIA_BASE_URL', `${url} is plain http; set ALLOW_INSECURE_UPSTREAM=on only for a local emulator`)
        break
      }
    }
  }

  const scopes = parseScopes(read.string('OAUTH_SCOPES', 'basic user.info'))
  const unknown = scopes.filter((scope) => !KNOWN_SCOPES.includes(scope))
  if (unknown.length > 0) read.problem('OAUTH_SCOPES', `unknown scope(s) ${unknown.join(', ')}; known: ${KNOWN_SCOPES.join(' ')}`)

  const tokenAuthMethod = read.string('OAUTH_TOKEN_AUTH_METHOD', 'client_secret_post')
  if (tokenAuthMethod !== 'client_secret_post' && tokenAuthMethod !== 'client_secret_basic') {
    read.problem('OAUTH_TOKEN_AUTH_METHOD', `must be client_secret_post or client_secret_basic, got "${tokenAuthMethod}"`)
  }

  const { basePath, redirectUri, callbackPath } = readMount(read, publicUrl, production)

  const secrets = read.list('SESSION_SECRETS')
  if (secrets.length === 0) read.required('SESSION_SECRETS', 'comma list of random strings of 32+ characters; the first signs, all verify')
  if (secrets.some((secret) => secret.length < MIN_SECRET_LENGTH)) {
    read.problem('SESSION_SECRETS', `every secret must have at least ${MIN_SECRET_LENGTH} characters`)
  }

  let tokenKeys: TokenKey[] = []
  const tokenKeySpec = read.required('TOKEN_KEYS', 'comma list of id:base64key with 32-byte keys; the first encrypts, all decrypt')
  if (tokenKeySpec !== '') {
    try {
      tokenKeys = parseTokenKeys(tokenKeySpec)
    } catch (error) {
      read.problem('TOKEN_KEYS', (error as Error).message)
    }
  }

  const cookieNameSetting = read.string('SESSION_COOKIE_NAME', 'media-bff')
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(cookieNameSetting)) read.problem('SESSION_COOKIE_NAME', 'must be 1 to 64 letters, digits, _ . and -')
  // Over https the name carries __Host-Http- (RFC 10017): host-only, Secure, Path=/, and only ever
  // set by a server, never by a page's script. The prefixes demand Secure, which browsers refuse
  // on plain http; only the local demo on http://localhost runs without them.
  const cookieBase = cookieNameSetting.replace(/^(__Host-Http-|__Http-|__Host-|__Secure-)/, '')
  const cookieName = isHttpsPublic ? `__Host-Http-${cookieBase}` : cookieBase

  const idleTimeoutMs = read.duration('SESSION_IDLE_TIMEOUT', 2 * 3_600_000)
  const absoluteTimeoutMs = read.duration('SESSION_ABSOLUTE_TIMEOUT', 12 * 3_600_000)
  if (idleTimeoutMs > absoluteTimeoutMs) read.problem('SESSION_IDLE_TIMEOUT', 'must not be longer than SESSION_ABSOLUTE_TIMEOUT')

  const trustProxy = read.list('TRUST_PROXY')
  for (const entry of trustProxy) {
    if (!isAddressOrCidr(entry)) read.problem('TRUST_PROXY', `"${entry}" is not an IP address or CIDR range`)
    // Fastify's proxy-address matcher throws on a /0 at start; say why instead, in any environment.
    else if (/\/0+$/.test(entry)) read.problem('TRUST_PROXY', `"${entry}" trusts every address; list only the reverse proxies' addresses`)
  }

  const allowedOrigins = read.list('ALLOWED_ORIGINS').map((origin) => {
    const url = read.url('ALLOWED_ORIGINS', origin)
    if (url !== undefined && new URL(url).origin !== url) read.problem('ALLOWED_ORIGINS', `"${origin}" must be an origin (scheme, host, port) without a path`)
    // The session cookie never goes with a request from another site: a page there could call
    // media-bff but would never be signed in.
    else if (url !== undefined && publicUrlSetting !== undefined && !isSameSite(url, publicOrigin)) {
      const why = `"${origin}" is not the same site as PUBLIC_URL (${siteOf(publicOrigin)}): the session cookie is never sent from it, so its pages are never signed in. Serve that site under PUBLIC_URL's site (best: the same origin, with BASE_PATH)`
      // In production a plain-http end is refused on its own (below); one problem each.
      if (!production) read.warn('ALLOWED_ORIGINS', why)
      else if (isHttpsPublic && url.startsWith('https:')) read.problem('ALLOWED_ORIGINS', `${why} (NODE_ENV=production)`)
    }
    return url ?? ''
  })

  const redisUrl = read.raw('REDIS_URL')
  const redisTlsCa = readRedisTlsCa(read, redisUrl)
  if (redisUrl !== undefined) {
    // The client's own parser: what passes here is what the store will connect with.
    try {
      parseRedisUrl(redisUrl)
    } catch (error) {
      if (!(error instanceof RedisUrlError)) throw error
      read.problem('REDIS_URL', error.message)
    }
  }

  const allowedHosts = read.list('UPLOAD_ALLOWED_HOSTS').map((host) => host.toLowerCase())
  for (const host of allowedHosts) {
    if (!/^[a-z0-9.-]+(:\d+)?$/.test(host)) read.problem('UPLOAD_ALLOWED_HOSTS', `"${host}" is not a host name (host or host:port)`)
  }

  // A production instance answers real browsers: what is only tolerable for the local demo on
  // http://localhost is refused there, each problem named, all at once.
  if (production) {
    if (publicUrlSetting !== undefined && !isHttpsPublic) {
      read.problem('PUBLIC_URL', 'must be https when NODE_ENV=production (the session cookie is only Secure and __Host- over https)')
    }
    for (const origin of allowedOrigins) {
      if (origin.startsWith('http:')) read.problem('ALLOWED_ORIGINS', `"${origin}" is plain http; only https origins are allowed when NODE_ENV=production`)
    }
    const everyone = trustsEveryone(trustProxy.filter((entry) => isAddressOrCidr(entry) && !/\/0+$/.test(entry)))
    if (everyone !== undefined) {
      read.problem('TRUST_PROXY', `${everyone}, so anyone could claim any client address or https; list only the reverse proxies' addresses (NODE_ENV=production)`)
    }
    if (allowedHosts.length === 0) {
      read.problem('UPLOAD_ALLOWED_HOSTS', 'is required when NODE_ENV=production: the hosts (host or host:port) url_upload_direct may point at, e.g. upload.media.example')
    }
  }
  const metricsToken = readBearerToken(read, 'METRICS_TOKEN')
  const operatorToken = readBearerToken(read, 'OPERATOR_TOKEN')
  if (operatorToken !== undefined && operatorToken === metricsToken) {
    read.problem('OPERATOR_TOKEN', 'must differ from METRICS_TOKEN: whoever scrapes metrics must not be able to end sessions')
  }

  const extensions = read.list('UPLOAD_FILE_EXTENSIONS').map((ext) => ext.replace(/^\./, '').toLowerCase())
  if (extensions.some((ext) => !/^[a-z0-9]{1,16}$/.test(ext))) read.problem('UPLOAD_FILE_EXTENSIONS', 'must be a comma list of extensions such as jpg,png,mp4')

  const config: Config = {
    publicUrl,
    publicOrigin,
    basePath,
    warnings: read.warnings,
    host: read.string('HOST', '0.0.0.0'),
    port: read.integer('PORT', 3000, { min: 0, max: 65535 }),
    logLevel: readLogLevel(read),
    tracing: readTracing(read),
    trustProxy,
    allowedOrigins: [...new Set([publicOrigin, ...allowedOrigins.filter((o) => o !== '')])],
    tenants,
    defaultTenant,
    oauth: {
      clientId: read.required('OAUTH_CLIENT_ID', 'the API client id issued by the media service operator'),
      clientSecret: read.required('OAUTH_CLIENT_SECRET', 'the API client secret'),
      scopes,
      tokenAuthMethod: tokenAuthMethod as TokenAuthMethod,
      redirectUri,
      callbackPath,
      allowInsecureRequests,
      refreshSkewMs: read.duration('TOKEN_REFRESH_SKEW', 60_000),
      refreshLockLeaseMs: read.duration('REFRESH_LOCK_LEASE', 15_000)
    },
    session: {
      cookieName,
      // Releases before 0.2.0 named it __Host-<name>: read and written beside the new name only
      // while a rolling upgrade from 0.1.0 runs (plugins/previous-cookie-name.ts).
      rollingUpgrade: readRollingUpgrade(read, cookieBase, isHttpsPublic, Date.now()),
      secureCookie: isHttpsPublic,
      secrets,
      idleTimeoutMs,
      absoluteTimeoutMs,
      loginTimeoutMs: read.duration('LOGIN_TIMEOUT', 10 * 60_000),
      maxLoginsPerBrowser: read.integer('LOGIN_MAX_PER_BROWSER', MAX_SLOTS, { min: 1, max: MAX_SLOTS })
    },
    tokenKeys,
    redisUrl,
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX', 'media-bff:'),
    memoryMaxSessions: read.integer('MEMORY_MAX_SESSIONS', 50_000, { min: 10, max: 10_000_000 }),
    redisTlsCa,
    upload: {
      allowedHosts,
      maxFilesize: read.optionalInteger('UPLOAD_MAX_FILESIZE', { min: 1 }),
      maxFiles: read.optionalInteger('UPLOAD_MAX_FILES', { min: 1 }),
      maxSize: read.optionalInteger('UPLOAD_MAX_SIZE', { min: 1 }),
      fileExtensions: extensions.length > 0 ? extensions : undefined
    },
    upstreamTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS', 10_000, { min: 100, max: 300_000 }),
    relayMaxInFlightPerUser: read.integer('RELAY_MAX_IN_FLIGHT_PER_USER', 8, { min: 1, max: 10_000 }),
    bodyLimit: read.integer('BODY_LIMIT', 16_384, { min: 1024, max: 1_048_576 }),
    rateLimit: {
      loginPerMinute: read.integer('RATE_LIMIT_LOGIN_PER_MINUTE', 30, { min: 1 }),
      registerPerMinute: read.integer('RATE_LIMIT_REGISTER_PER_MINUTE', 120, { min: 1 }),
      finishPerMinute: read.integer('RATE_LIMIT_FINISH_PER_MINUTE', 120, { min: 1 }),
      apiPerMinute: read.integer('RATE_LIMIT_API_PER_MINUTE', 600, { min: 1 }),
      sessionsPerMinute: read.integer('RATE_LIMIT_SESSIONS_PER_MINUTE', 60, { min: 1 }),
      eventsPerMinute: read.integer('RATE_LIMIT_EVENTS_PER_MINUTE', 120, { min: 1 })
    },
    demoSite: read.boolean('DEMO_SITE', false),
    metricsToken,
    operatorToken,
    webhooks: {
      path: readWebhookPath(read),
      keys: readWebhookKeys(read, tenants, defaultTenant),
      perMinute: read.integer('RATE_LIMIT_WEBHOOKS_PER_MINUTE', 600, { min: 1 }),
      takeoverAfterMs: read.duration('WEBHOOK_TAKEOVER_AFTER', 20_000, { minMs: 1_000, maxMs: 300_000 })
    },
    events: {
      maxStreams: read.integer('EVENTS_MAX_STREAMS', 5000, { min: 1, max: 1_000_000 }),
      // A person's tabs in all their browsers: ample for one person, and a small share of an
      // instance, so a few accounts cannot fill it.
      maxPerPerson: read.integer('EVENTS_MAX_PER_PERSON', 20, { min: 1, max: 10_000 }),
      // Under the read timeout of every proxy on the way (docker/nginx.conf's is 45 s, nginx's
      // default 60 s), and not so often that thousands of idle channels cost real CPU.
      heartbeatMs: read.duration('EVENTS_HEARTBEAT', 20_000, { minMs: 5_000, maxMs: 40_000 })
    }
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems)
  return deepFreeze(config)
}

/**
 * Frozen all the way down: the configuration is read once and never grows or changes while
 * the application runs (its maps are frozen too: set and delete throw).
 */
function deepFreeze<T> (value: T): T {
  if (value instanceof Map) {
    for (const entry of value.values()) deepFreeze(entry)
    const frozen = value as Map<unknown, unknown>
    frozen.set = () => { throw new TypeError('the configuration is frozen') }
    frozen.delete = () => { throw new TypeError('the configuration is frozen') }
    frozen.clear = () => { throw new TypeError('the configuration is frozen') }
  } else if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const field of Object.values(value)) deepFreeze(field)
  }
  return value !== null && typeof value === 'object' ? Object.freeze(value) : value
}

const MIN_WEBHOOK_KEY_LENGTH = 16

/**
 * WEBHOOK_KEYS: the key of each webhook endpoint configured at the service, `key` for the one
 * (default) tenant or `tenant:key,...`; several keys of one tenant all verify (rotation).
 */
function readWebhookKeys (read: EnvReader, tenants: Map<string, Tenant>, defaultTenant: string): Map<string, string[]> {
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

function readWebhookPath (read: EnvReader): string {
  const path = read.string('WEBHOOK_PATH', '/webhooks/media')
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path) || path.startsWith('/api/') || path.startsWith('/auth/')) {
    read.problem('WEBHOOK_PATH', 'must be a plain path such as /webhooks/media, outside /api/ and /auth/')
  }
  return path
}

/**
 * REDIS_TLS_CA_FILE: the certificates (PEM) of a private CA that signed Redis's TLS certificate,
 * read once at start; only with a rediss:// URL, where TLS is in use.
 */
function readRedisTlsCa (read: EnvReader, redisUrl: string | undefined): string | undefined {
  const file = read.raw('REDIS_TLS_CA_FILE')
  if (file === undefined) return undefined
  if (redisUrl === undefined || !/^rediss(\+\w+)?:/i.test(redisUrl)) {
    read.problem('REDIS_TLS_CA_FILE', 'is only used with a TLS REDIS_URL (rediss://, rediss+sentinel://, rediss+cluster://)')
    return undefined
  }
  let pem: string
  try {
    pem = readFileSync(file, 'utf8')
  } catch (error) {
    read.problem('REDIS_TLS_CA_FILE', `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
    return undefined
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) read.problem('REDIS_TLS_CA_FILE', `${file} holds no PEM certificate`)
  return pem
}

/** An operator's token from the environment: long and random enough, and usable in a Bearer header. */
function readBearerToken (read: EnvReader, name: string): string | undefined {
  const token = read.raw(name)
  if (token !== undefined && (token.length < MIN_SECRET_LENGTH || !/^[A-Za-z0-9._~+/-]+=*$/.test(token))) {
    read.problem(name, `must be a random string of at least ${MIN_SECRET_LENGTH} characters usable in a Bearer header (letters, digits, - . _ ~ + /)`)
  }
  return token
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

function readLogLevel (read: EnvReader): string {
  const level = read.string('LOG_LEVEL', 'info').toLowerCase()
  if (!LOG_LEVELS.includes(level)) read.problem('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`)
  return level
}
