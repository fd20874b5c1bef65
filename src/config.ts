// The whole configuration of media-bff, read from the environment (design.md section 2) and
// validated once at start. loadConfig throws one ConfigError naming every bad variable.
import { isIP } from 'node:net'
import { EnvReader, type Env } from './env-reader.js'
import { parseTokenKeys, type TokenKey } from './store/token-cipher.js'
import { parseRedisUrl, RedisUrlError } from './store/redis-url.js'
import { KNOWN_SCOPES, parseScopes } from './oauth/scopes.js'

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

export type TokenAuthMethod = 'client_secret_post' | 'client_secret_basic'

export interface Config {
  publicUrl: string
  publicOrigin: string
  host: string
  port: number
  logLevel: string
  /** CIDRs / addresses of the reverse proxies whose X-Forwarded-* headers are believed. */
  trustProxy: string[]
  /** Origins allowed to call state-changing routes (PUBLIC_URL's origin is always allowed). */
  allowedOrigins: string[]
  tenants: Map<string, Tenant>
  defaultTenant: string
  oauth: {
    clientId: string
    clientSecret: string
    scopes: string[]
    tokenAuthMethod: TokenAuthMethod
    redirectUri: string
    /** Plain http to the authorization server and API (development and the emulator only). */
    allowInsecureRequests: boolean
    refreshSkewMs: number
    /** Lease of the cross-instance refresh lock, renewed while a refresh runs. */
    refreshLockLeaseMs: number
  }
  session: {
    cookieName: string
    /** Secure cookie and __Host- prefix; only dropped for a plain-http PUBLIC_URL. */
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
  upload: {
    allowedHosts: string[]
    maxFilesize: number | undefined
    maxFiles: number | undefined
    maxSize: number | undefined
    fileExtensions: string[] | undefined
  }
  upstreamTimeoutMs: number
  bodyLimit: number
  rateLimit: { loginPerMinute: number, registerPerMinute: number, finishPerMinute: number }
  demoSite: boolean
  /** When set, GET /metrics and /docs answer only `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined
}

export class ConfigError extends Error {
  constructor (readonly problems: string[]) {
    super(`media-bff cannot start, the configuration has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

const MIN_SECRET_LENGTH = 32

export function loadConfig (env: Env = process.env): Config {
  const read = new EnvReader(env)

  const publicUrlSetting = read.url('PUBLIC_URL', read.required('PUBLIC_URL', 'the address browsers use, e.g. https://media.example.org'))
  const publicUrl = publicUrlSetting ?? 'http://invalid'
  const publicOrigin = new URL(publicUrl).origin
  const isHttpsPublic = publicUrl.startsWith('https:')
  const production = env.NODE_ENV === 'production'

  const tenants = readTenants(read)
  applyIssRequirement(read, tenants)
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

  const redirectUri = read.url('OAUTH_REDIRECT_URI', read.raw('OAUTH_REDIRECT_URI')) ?? `${publicUrl}/auth/callback`

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

  const cookieNameSetting = read.string('SESSION_COOKIE_NAME', '__Host-media-bff')
  if (!/^[A-Za-z0-9_.-]+$/.test(cookieNameSetting)) read.problem('SESSION_COOKIE_NAME', 'may hold only letters, digits, _ . and -')
  // The __Host- prefix demands Secure, which browsers refuse on plain http; only the local demo
  // on http://localhost runs without it.
  const cookieName = isHttpsPublic ? ensureHostPrefix(cookieNameSetting) : cookieNameSetting.replace(/^__(Host|Secure)-/, '')

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
    return url ?? ''
  })

  const redisUrl = read.raw('REDIS_URL')
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
  const metricsToken = read.raw('METRICS_TOKEN')
  if (metricsToken !== undefined && (metricsToken.length < MIN_SECRET_LENGTH || !/^[A-Za-z0-9._~+/-]+=*$/.test(metricsToken))) {
    read.problem('METRICS_TOKEN', `must be a random string of at least ${MIN_SECRET_LENGTH} characters usable in a Bearer header (letters, digits, - . _ ~ + /)`)
  }

  const extensions = read.list('UPLOAD_FILE_EXTENSIONS').map((ext) => ext.replace(/^\./, '').toLowerCase())
  if (extensions.some((ext) => !/^[a-z0-9]{1,16}$/.test(ext))) read.problem('UPLOAD_FILE_EXTENSIONS', 'must be a comma list of extensions such as jpg,png,mp4')

  const config: Config = {
    publicUrl,
    publicOrigin,
    host: read.string('HOST', '0.0.0.0'),
    port: read.integer('PORT', 3000, { min: 0, max: 65535 }),
    logLevel: readLogLevel(read),
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
      allowInsecureRequests,
      refreshSkewMs: read.duration('TOKEN_REFRESH_SKEW', 60_000),
      refreshLockLeaseMs: read.duration('REFRESH_LOCK_LEASE', 15_000)
    },
    session: {
      cookieName,
      secureCookie: isHttpsPublic,
      secrets,
      idleTimeoutMs,
      absoluteTimeoutMs,
      loginTimeoutMs: read.duration('LOGIN_TIMEOUT', 10 * 60_000),
      maxLoginsPerBrowser: read.integer('LOGIN_MAX_PER_BROWSER', 10, { min: 1, max: 100 })
    },
    tokenKeys,
    redisUrl,
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX', 'media-bff:'),
    upload: {
      allowedHosts,
      maxFilesize: read.optionalInteger('UPLOAD_MAX_FILESIZE', { min: 1 }),
      maxFiles: read.optionalInteger('UPLOAD_MAX_FILES', { min: 1 }),
      maxSize: read.optionalInteger('UPLOAD_MAX_SIZE', { min: 1 }),
      fileExtensions: extensions.length > 0 ? extensions : undefined
    },
    upstreamTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS', 10_000, { min: 100, max: 300_000 }),
    bodyLimit: read.integer('BODY_LIMIT', 16_384, { min: 1024, max: 1_048_576 }),
    rateLimit: {
      loginPerMinute: read.integer('RATE_LIMIT_LOGIN_PER_MINUTE', 30, { min: 1 }),
      registerPerMinute: read.integer('RATE_LIMIT_REGISTER_PER_MINUTE', 120, { min: 1 }),
      finishPerMinute: read.integer('RATE_LIMIT_FINISH_PER_MINUTE', 120, { min: 1 })
    },
    demoSite: read.boolean('DEMO_SITE', false),
    metricsToken
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems)
  return config
}

function readTenants (read: EnvReader): Map<string, Tenant> {
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

/** OAUTH_REQUIRE_ISS: on (every tenant), off, or a comma list of tenant names. */
function applyIssRequirement (read: EnvReader, tenants: Map<string, Tenant>): void {
  const setting = read.list('OAUTH_REQUIRE_ISS')
  if (setting.length === 1 && ['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'].includes(setting[0]?.toLowerCase() ?? '')) {
    const all = read.boolean('OAUTH_REQUIRE_ISS', false)
    for (const tenant of tenants.values()) tenant.requireIss = all
    return
  }
  for (const name of setting) {
    const tenant = tenants.get(name)
    if (tenant === undefined) read.problem('OAUTH_REQUIRE_ISS', `names no tenant "${name}" (on, off, or tenant names)`)
    else tenant.requireIss = true
  }
}

function ensureHostPrefix (name: string): string {
  return name.startsWith('__Host-') ? name : `__Host-${name.replace(/^__Secure-/, '')}`
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

function readLogLevel (read: EnvReader): string {
  const level = read.string('LOG_LEVEL', 'info').toLowerCase()
  if (!LOG_LEVELS.includes(level)) read.problem('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`)
  return level
}

function isAddressOrCidr (entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true
  const [address = '', prefix] = entry.split('/')
  const family = isIP(address)
  if (family === 0) return false
  if (prefix === undefined) return true
  return /^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

// What TRUST_PROXY means to Fastify's proxy-address matcher (@fastify/proxy-addr): IPv4 clients
// are matched by IPv4 ranges and by IPv4-mapped IPv6 ranges of prefix 96 or more
// (::ffff:0.0.0.0/96 is 0.0.0.0/0); IPv6 clients by the other IPv6 ranges.
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']
}
const V4_BITS = 32n
const V6_BITS = 128n
/** Every public IPv6 address lies in 2000::/3; trusting all of it is trusting everyone. */
const GLOBAL_V6: Interval = [0x2n << 124n, (0x4n << 124n) - 1n]

type Interval = [bigint, bigint]

/** A description of the client addresses the entries trust entirely, or undefined. */
function trustsEveryone (entries: string[]): string | undefined {
  const v4: Interval[] = []
  const v6: Interval[] = []
  for (const entry of entries.flatMap((item) => NAMED_RANGES[item] ?? [item])) {
    const [address = '', prefixText] = entry.split('/')
    if (isIP(address) === 4) {
      v4.push(range(ipv4Number(address), prefixText === undefined ? V4_BITS : BigInt(prefixText), V4_BITS))
      continue
    }
    const value = ipv6Number(address)
    const prefix = prefixText === undefined ? V6_BITS : BigInt(prefixText)
    if (value >> 32n === 0xffffn) {
      // IPv4-mapped: only a prefix that keeps the ::ffff: marker reaches IPv4 clients.
      if (prefix >= 96n) v4.push(range(value & 0xffffffffn, prefix - 96n, V4_BITS))
    } else {
      v6.push(range(value, prefix, V6_BITS))
    }
  }
  if (covers(v4, [0n, (1n << V4_BITS) - 1n])) return entries.length === 1 ? `"${entries[0] ?? ''}" trusts every IPv4 address` : 'together, the entries trust every IPv4 address'
  if (covers(v6, GLOBAL_V6)) return entries.length === 1 ? `"${entries[0] ?? ''}" trusts every public IPv6 address` : 'together, the entries trust every public IPv6 address'
  return undefined
}

function range (address: bigint, prefix: bigint, bits: bigint): Interval {
  const size = 1n << (bits - prefix)
  const start = address - (address % size)
  return [start, start + size - 1n]
}

function covers (intervals: Interval[], [from, to]: Interval): boolean {
  let next = from
  for (const [start, end] of [...intervals].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (start > next) break
    if (end >= next) next = end + 1n
    if (next > to) return true
  }
  return next > to
}

function ipv4Number (address: string): bigint {
  return address.split('.').reduce((total, octet) => (total << 8n) + BigInt(octet), 0n)
}

function ipv6Number (address: string): bigint {
  let text = address.split('%')[0] ?? ''
  // A trailing dotted quad (::ffff:10.0.0.1) is the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1]
  if (quad !== undefined) {
    const value = ipv4Number(quad)
    text = `${text.slice(0, -quad.length)}${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const groups = (part: string): string[] => part === '' ? [] : part.split(':')
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return all.reduce((total, group) => (total << 16n) + BigInt(`0x${group}`), 0n)
}
