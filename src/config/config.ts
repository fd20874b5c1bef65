// The whole configuration of media-bff, read from the environment and validated once at start.
// Every variable is declared in src/config/variables.ts (the docs' configuration reference and
// .env.example are written from there); each section of the configuration is read by a module of
// its own beside this one. loadConfig throws one ConfigError naming every bad variable.
import type { Env } from './env-reader.js'
import { DeclaredReader } from './declared-reader.js'
import { FILE_VARIABLES, KNOWN_NAMES, SECRET_VARIABLES } from './variables.js'
import { unknownNames } from './names.js'
import { readAllowedOrigins, readFrameAncestors, readPublicAddress, readTrustProxy } from './origins.js'
import { readMediaService } from './media-service.js'
import { readOAuthClient, type OAuthClient } from './oauth.js'
import { readMount } from './mount.js'
import { readSessionSettings, readTokenKeys, type SessionSettings } from './session.js'
import { readStoreSettings } from './store.js'
import { readUploadSettings, type UploadSettings } from './uploads.js'
import { readOperatorTokens } from './operators.js'
import { readLimits, type Limits } from './limits.js'
import { readEventSettings, readWebhookSettings, type EventSettings, type WebhookSettings } from './live-updates.js'
import { readTracing, type TracingConfig } from './tracing.js'
import { readSiteServerSettings, type SiteServerSettings } from './assertions.js'
import { readAuditLog, type AuditLog } from './audit.js'
import type { Tenant } from './tenants.js'
import type { TokenKey } from '../store/token-cipher.js'

export type { Tenant } from './tenants.js'
export type { TokenAuthMethod } from './oauth.js'
export { FILE_VARIABLES, SECRET_VARIABLES } from './variables.js'

export interface Config extends Limits, SiteServerSettings {
  publicUrl: string
  publicOrigin: string
  /** Settings that work but are likely mistakes: each logged once at start (plugins/config.ts). */
  warnings: readonly string[]
  /** '' or a path such as /media-bff: where media-bff answers on PUBLIC_URL's origin (BASE_PATH). */
  basePath: string
  host: string
  port: number
  logLevel: string
  /** Where the audit events go (AUDIT_LOG). */
  auditLog: AuditLog
  /** OpenTelemetry tracing: on only when the standard OTEL_* variables name an OTLP endpoint. */
  tracing: TracingConfig
  /** CIDRs / addresses of the reverse proxies whose X-Forwarded-* headers are believed. */
  trustProxy: string[]
  /** Strict-Transport-Security over https says includeSubDomains (HSTS_INCLUDE_SUBDOMAINS). */
  hstsIncludeSubdomains: boolean
  /** Origins allowed to call state-changing routes (PUBLIC_URL's origin is always allowed). */
  allowedOrigins: string[]
  /** FRAME_ANCESTORS: origins whose pages may frame ours; empty: none (the session cookie is then Strict). */
  frameAncestors: string[]
  tenants: ReadonlyMap<string, Tenant>
  defaultTenant: string
  oauth: OAuthClient
  session: SessionSettings
  tokenKeys: TokenKey[]
  redisUrl: string | undefined
  redisKeyPrefix: string
  /** Without Redis: sign-ins held at once before a new one is refused (the in-memory stores are sized from it). */
  memoryMaxSessions: number
  /** PEM certificates to trust for Redis over TLS (REDIS_TLS_CA_FILE): a private CA; the system's otherwise. */
  redisTlsCa: string | undefined
  upload: UploadSettings
  upstreamTimeoutMs: number
  demoSite: boolean
  /** When set, GET /metrics and /docs answer only `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined
  /** When set, the operators' endpoints exist (/operator/...), only for `Authorization: Bearer <operatorToken>`. */
  operatorToken: string | undefined
  /** The media service's webhooks: where they are received, and each tenant's keys (none: off). */
  webhooks: WebhookSettings
  /** The live channel (GET /events): how many this instance holds at most, how often it says it is alive. */
  events: EventSettings
}

export class ConfigError extends Error {
  constructor (readonly problems: string[]) {
    super(`media-bff cannot start, the configuration has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** Where the variables came from, for the names that are set but never read (src/config/names.ts). */
export interface ConfigSources {
  /** The file of variables read under the environment (src/config/env-file.ts), and the names taken from it. */
  file?: { path: string, taken: readonly string[] }
  /** Names something else in the same process reads (`npm start`'s emulator). */
  alsoKnown?: Iterable<string>
}

export function loadConfig (env: Env = process.env, sources: ConfigSources = {}): Config {
  return readConfig(env, sources).config
}

/** The configuration, and the names of the variables that were read for it. */
export function readConfig (env: Env = process.env, sources: ConfigSources = {}): { config: Config, read: ReadonlySet<string> } {
  const read = new DeclaredReader(env)
  read.env.readFromFiles(FILE_VARIABLES)
  read.env.refuseUnexpanded(SECRET_VARIABLES)
  // A production instance answers real browsers: what is only tolerable for the local demo on
  // http://localhost is refused there, each problem named, all at once.
  const production = read.raw('NODE_ENV') === 'production'

  const address = readPublicAddress(read, production)
  const service = readMediaService(read, production)
  const mount = readMount(read, address.publicUrl, production)
  const session = readSessionSettings(read, address.isHttps)
  const store = readStoreSettings(read, production)
  const operators = readOperatorTokens(read, production)
  const config: Config = {
    publicUrl: address.publicUrl,
    publicOrigin: address.publicOrigin,
    basePath: mount.basePath,
    warnings: read.warnings,
    host: read.string('HOST'),
    port: read.integer('PORT'),
    logLevel: read.choice('LOG_LEVEL', (level) => level.toLowerCase()),
    auditLog: readAuditLog(read),
    tracing: readTracing(read),
    trustProxy: readTrustProxy(read, production),
    hstsIncludeSubdomains: read.boolean('HSTS_INCLUDE_SUBDOMAINS'),
    allowedOrigins: readAllowedOrigins(read, address, production),
    frameAncestors: readFrameAncestors(read, address, production),
    tenants: service.tenants,
    defaultTenant: service.defaultTenant,
    oauth: readOAuthClient(read, mount, service.allowInsecureRequests),
    session,
    tokenKeys: readTokenKeys(read),
    ...store,
    upload: readUploadSettings(read, production),
    upstreamTimeoutMs: service.upstreamTimeoutMs,
    ...readLimits(read),
    demoSite: read.boolean('DEMO_SITE'),
    ...operators,
    webhooks: readWebhookSettings(read, service.tenants, service.defaultTenant),
    events: readEventSettings(read),
    ...readSiteServerSettings(read, `${address.publicOrigin}${mount.basePath}`, production)
  }
  if (config.frameAncestors.length > 0 && config.session.deviceBound !== undefined) {
    read.problem('FRAME_ANCESTORS', 'cannot be set with DEVICE_BOUND_SESSIONS=on: a device-bound session lives in the browser\'s own first-party context, never in a frame')
  }
  checkNames(read, Object.keys(env), sources, production)
  if (read.problems.length > 0) throw new ConfigError(read.problems)
  return { config: deepFreeze(config), read: read.names }
}

/**
 * Names set but never read that look meant for media-bff: named at start with the one meant. In
 * the environment, which holds everyone's variables, a warning; in the file of variables, which
 * is media-bff's own, an error in production, and any other name there a warning.
 */
function checkNames (read: DeclaredReader, names: readonly string[], sources: ConfigSources, production: boolean): void {
  const known = new Set([...KNOWN_NAMES, ...(sources.alsoKnown ?? [])])
  const file = sources.file
  const fromFile = new Set(file?.taken ?? [])
  const suspect = unknownNames(names, known, new Set(FILE_VARIABLES))
  for (const { name, message } of suspect) {
    if (file === undefined || !fromFile.has(name)) read.warn(name, `${message} (set in the environment)`)
    else if (production) read.problem(name, `${message} (set in ${file.path})`)
    else read.warn(name, `${message} (set in ${file.path})`)
  }
  const flagged = new Set(suspect.map((found) => found.name))
  for (const name of fromFile) {
    if (!known.has(name) && !flagged.has(name)) read.warn(name, `is not a variable media-bff reads (set in ${file?.path ?? ''})`)
  }
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
