// Options of startEmulator, checked once at start so a typo fails loudly instead of producing an
// emulator that behaves oddly later.
import { randomBytes } from 'node:crypto'
import { isAbsoluteHttpUrl } from './http/absolute-url.js'
import { buildFixtureUsers, defaultUserInputs, type FixtureUser, type FixtureUserInput } from './fixture-users.js'
import { defaultLinger, type LingerLimits } from './upload/lingering-close.js'
import { parseWebhookEndpoint, type WebhookEndpoint, type WebhookEndpointInput } from './webhooks/webhook-endpoints.js'
import { publishedScopes, type ScopeCatalog } from './scopes.js'

export interface EmulatorOptions {
  /** Interface both servers listen on. Default 127.0.0.1. */
  host?: string
  /** Port of the tenant API origin; 0 picks a free one. Default 4000. */
  apiPort?: number
  /** Port of the upload origin; 0 picks a free one. Default 4001. */
  uploadPort?: number
  clientId?: string
  clientSecret?: string
  /** The client's one registered redirect URI. */
  redirectUri?: string
  /** Seconds. Default 3600. */
  accessTokenTtl?: number
  /** Seconds. Default 60 days. */
  refreshTokenTtl?: number
  /** A refresh returns a new refresh token and retires the old one. Default true. */
  rotateRefreshTokens?: boolean
  /** Where uploaded files are written. Default: a new temporary directory, removed on stop. */
  dataDir?: string
  /** Origins allowed to post to the upload origin from a browser. Default: any. */
  corsOrigins?: string[]
  users?: FixtureUserInput[]
  /**
   * Scopes a later version of the service adds to its published five, with what its consent page
   * says of each: a client must not depend on the list it knows. Default none.
   */
  laterScopes?: Record<string, string>
  /** Seconds an upload registration lives. Default 3600; fractions allowed (tests). */
  uploadTtl?: number
  /** Seconds an authorization code lives. Default 60; fractions allowed (tests). */
  authorizationCodeTtl?: number
  /** HMAC key of the signed upload URLs. Default: random per start. */
  signingKey?: string
  /** Origin announced for the API when it is reached through another name (containers, proxies). */
  publicApiOrigin?: string
  /** Origin announced for uploads when it is reached through another name. */
  publicUploadOrigin?: string
  /**
   * How long (ms) and how much (bytes) the upload host keeps reading a body it refused before
   * closing (upload/lingering-close.ts). Default 5000 ms, 16 MiB; tests shorten them.
   */
  lingeringClose?: Partial<LingerLimits>
  /**
   * Milliseconds a stored file stays `processing` (the service transcodes it) before it is
   * `ready`. Default 3000; 0 makes it ready at the next turn of the event loop.
   */
  processingMs?: number
  /**
   * Outbound webhook endpoints, each for one account (fixture user): that account's events are
   * POSTed to `url`, signed with `key`. `events` defaults to all (webhooks/webhook-events.ts).
   */
  webhooks?: WebhookEndpointInput[]
  /**
   * Milliseconds before each of the three retries of a delivery that failed. Default
   * [1000, 5000, 15000]; tests shorten them.
   */
  webhookRetryDelaysMs?: number[]
}

/** The settings a running emulator works from; the runtime-changeable ones are mutable. */
export interface EmulatorSettings {
  host: string
  apiPort: number
  uploadPort: number
  clientId: string
  clientSecret: string
  redirectUri: string
  accessTokenTtl: number
  refreshTokenTtl: number
  rotateRefreshTokens: boolean
  dataDir: string | undefined
  corsOrigins: string[] | undefined
  users: FixtureUser[]
  /** The scopes the service knows: its published ones and any laterScopes. */
  scopes: ScopeCatalog
  uploadTtl: number
  authorizationCodeTtl: number
  signingKey: string
  publicApiOrigin: string | undefined
  publicUploadOrigin: string | undefined
  lingeringClose: LingerLimits
  processingMs: number
  webhooks: WebhookEndpoint[]
  webhookRetryDelaysMs: number[]
}

export const defaults = {
  host: '127.0.0.1',
  apiPort: 4000,
  uploadPort: 4001,
  clientId: 'media-bff-demo',
  clientSecret: 'demo-secret',
  redirectUri: 'http://localhost:3000/auth/callback',
  accessTokenTtl: 3600,
  refreshTokenTtl: 60 * 24 * 3600,
  rotateRefreshTokens: true,
  uploadTtl: 3600,
  authorizationCodeTtl: 60,
  processingMs: 3000,
  webhookRetryDelaysMs: [1000, 5000, 15000] as readonly number[]
}

/** The service retries a failed delivery up to three times. */
const webhookRetries = 3
const maxRetryDelayMs = 3600 * 1000

/** The longest processing time allowed: a day. */
export const maxProcessingMs = 24 * 3600 * 1000

export function isProcessingMs (value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= maxProcessingMs
}

export function resolveOptions (options: EmulatorOptions = {}): EmulatorSettings {
  const problems: string[] = []
  const port = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || value < 0 || value > 65535) problems.push(`${name} must be an integer from 0 to 65535`)
    return value
  }
  const seconds = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) problems.push(`${name} must be a positive number of seconds`)
    return value
  }
  const text = (name: string, value: string | undefined, fallback: string): string => {
    if (value === undefined) return fallback
    if (typeof value !== 'string' || value === '' || /[\s]/.test(value)) problems.push(`${name} must be a non-empty string without spaces`)
    return value
  }
  const origin = (name: string, value: string | undefined): string | undefined => {
    if (value === undefined) return undefined
    if (!isOrigin(value)) problems.push(`${name} must be an origin such as http://localhost:4000`)
    return value.replace(/\/$/, '')
  }

  const redirectUri = options.redirectUri ?? defaults.redirectUri
  if (!isAbsoluteHttpUrl(redirectUri)) problems.push('redirectUri must be an absolute http(s) URL without a fragment')
  if (options.corsOrigins !== undefined && options.corsOrigins.some((entry) => entry !== '*' && !isOrigin(entry))) {
    problems.push('corsOrigins must list origins such as https://www.example.test (or "*")')
  }
  const later = Object.entries(options.laterScopes ?? {})
  if (later.some(([name, description]) => !/^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(name) || typeof description !== 'string' || publishedScopes.has(name))) problems.push('laterScopes must map new scope names (no space, quote or backslash) to what the consent page says of each')
  const scopes: ScopeCatalog = new Map([...publishedScopes, ...later])
  let users: FixtureUser[] = []
  try {
    users = buildFixtureUsers(options.users ?? defaultUserInputs, scopes)
  } catch (error) {
    problems.push((error as Error).message)
  }

  const webhooks: WebhookEndpoint[] = []
  if (options.webhooks !== undefined && !Array.isArray(options.webhooks)) problems.push('webhooks must be a list of { user, url, key, events? }')
  for (const [index, input] of (Array.isArray(options.webhooks) ? options.webhooks : []).entries()) {
    try {
      webhooks.push(parseWebhookEndpoint(input, users.map((user) => user.name)))
    } catch (error) {
      problems.push(`webhooks[${index}]: ${(error as Error).message}`)
    }
  }
  const retryDelays: unknown = options.webhookRetryDelaysMs ?? defaults.webhookRetryDelaysMs
  if (!Array.isArray(retryDelays) || retryDelays.length !== webhookRetries || !retryDelays.every((delay) => Number.isInteger(delay) && delay >= 0 && delay <= maxRetryDelayMs)) {
    problems.push(`webhookRetryDelaysMs must list ${webhookRetries} delays (integers from 0 to ${maxRetryDelayMs} ms), one per retry`)
  }

  const settings: EmulatorSettings = {
    host: text('host', options.host, defaults.host),
    apiPort: port('apiPort', options.apiPort, defaults.apiPort),
    uploadPort: port('uploadPort', options.uploadPort, defaults.uploadPort),
    clientId: text('clientId', options.clientId, defaults.clientId),
    clientSecret: text('clientSecret', options.clientSecret, defaults.clientSecret),
    redirectUri,
    accessTokenTtl: seconds('accessTokenTtl', options.accessTokenTtl, defaults.accessTokenTtl),
    refreshTokenTtl: seconds('refreshTokenTtl', options.refreshTokenTtl, defaults.refreshTokenTtl),
    rotateRefreshTokens: options.rotateRefreshTokens ?? defaults.rotateRefreshTokens,
    dataDir: options.dataDir,
    corsOrigins: options.corsOrigins,
    users,
    scopes,
    uploadTtl: seconds('uploadTtl', options.uploadTtl, defaults.uploadTtl),
    authorizationCodeTtl: seconds('authorizationCodeTtl', options.authorizationCodeTtl, defaults.authorizationCodeTtl),
    signingKey: options.signingKey ?? randomBytes(32).toString('base64url'),
    publicApiOrigin: origin('publicApiOrigin', options.publicApiOrigin),
    publicUploadOrigin: origin('publicUploadOrigin', options.publicUploadOrigin),
    lingeringClose: { ...defaultLinger, ...options.lingeringClose },
    processingMs: options.processingMs ?? defaults.processingMs,
    webhooks,
    webhookRetryDelaysMs: Array.isArray(retryDelays) ? [...retryDelays] as number[] : []
  }
  const { ms, bytes } = settings.lingeringClose
  if (!Number.isSafeInteger(ms) || ms < 1 || !Number.isSafeInteger(bytes) || bytes < 1) problems.push('lingeringClose.ms and lingeringClose.bytes must be positive integers')
  if (!isProcessingMs(settings.processingMs)) problems.push(`processingMs must be an integer from 0 to ${maxProcessingMs}`)
  if (typeof settings.rotateRefreshTokens !== 'boolean') problems.push('rotateRefreshTokens must be a boolean')
  if (settings.signingKey.length < 16) problems.push('signingKey must be at least 16 characters')
  if (problems.length > 0) throw new TypeError(`Invalid emulator options:\n  - ${problems.join('\n  - ')}`)
  return settings
}

function isOrigin (value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '')
  } catch {
    return false
  }
}
