// Sessions and the secrets that guard them: the cookie's name (with RFC 10017's __Host-Http-
// prefix over https), the secrets that sign it, the keys that seal tokens and sessions at rest,
// the timeouts, and a rolling upgrade from 0.1.0 (src/config/rolling-upgrade.ts).
import type { DeclaredReader } from './declared-reader.js'
import { readRollingUpgrade, type RollingUpgrade } from './rolling-upgrade.js'
import { parseTokenKeys, type TokenKey } from '../store/token-cipher.js'

/** The shortest secret or operator token taken: random strings of this many characters. */
export const MIN_SECRET_LENGTH = 32

export interface SessionSettings {
  cookieName: string
  /** While a rolling upgrade from 0.1.0 runs (ROLLING_UPGRADE_FROM_0_1): that version's cookie name, and until when. */
  rollingUpgrade: RollingUpgrade | undefined
  /** Secure cookie and __Host-Http- prefix; only dropped for a plain-http PUBLIC_URL. */
  secureCookie: boolean
  secrets: string[]
  idleTimeoutMs: number
  /** The oldest sign-in a risky act takes (RECENT_SIGN_IN). */
  recentSignInMs: number
  absoluteTimeoutMs: number
  /** How long a started sign-in may take before its transaction expires. */
  loginTimeoutMs: number
  /** Open login transactions one browser may hold at once (one per tab). */
  maxLoginsPerBrowser: number
  /** Device-bound sessions (DEVICE_BOUND_SESSIONS): undefined when off. */
  deviceBound: DeviceBoundSettings | undefined
  /** What a call from another device or network than the sign-in's does (SESSION_ANOMALY). */
  anomaly: AnomalySettings
}

export interface DeviceBoundSettings {
  /** The short-lived cookie only the session's key renews: the session cookie's name and `-bound`. */
  cookieName: string
  /** DEVICE_BOUND_COOKIE_LIFETIME. */
  cookieLifetimeMs: number
}

export type AnomalySignal = 'device' | 'network'
export type AnomalyAction = 'log' | 'reauth' | 'end'

export interface AnomalySettings {
  action: AnomalyAction
  signals: readonly AnomalySignal[]
}

const ANOMALY_SIGNALS: readonly AnomalySignal[] = ['device', 'network']

export function readSessionSettings (read: DeclaredReader, isHttps: boolean): SessionSettings {
  const secrets = read.list('SESSION_SECRETS')
  if (secrets.length === 0) read.required('SESSION_SECRETS')
  if (secrets.some((secret) => secret.length < MIN_SECRET_LENGTH)) {
    read.problem('SESSION_SECRETS', `every secret must have at least ${MIN_SECRET_LENGTH} characters`)
  }

  const cookieNameSetting = read.string('SESSION_COOKIE_NAME')
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(cookieNameSetting)) read.problem('SESSION_COOKIE_NAME', 'must be 1 to 64 letters, digits, _ . and -')
  // Over https the name carries __Host-Http- (RFC 10017): host-only, Secure, Path=/, and only ever
  // set by a server, never by a page's script. The prefixes demand Secure, which browsers refuse
  // on plain http; only the local demo on http://localhost runs without them.
  const cookieBase = cookieNameSetting.replace(/^(__Host-Http-|__Http-|__Host-|__Secure-)/, '')

  const idleTimeoutMs = read.duration('SESSION_IDLE_TIMEOUT')
  const absoluteTimeoutMs = read.duration('SESSION_ABSOLUTE_TIMEOUT')
  if (idleTimeoutMs > absoluteTimeoutMs) read.problem('SESSION_IDLE_TIMEOUT', 'must not be longer than SESSION_ABSOLUTE_TIMEOUT')

  const cookieName = isHttps ? `__Host-Http-${cookieBase}` : cookieBase
  const deviceBoundOn = read.boolean('DEVICE_BOUND_SESSIONS')
  const boundCookieLifetimeMs = read.duration('DEVICE_BOUND_COOKIE_LIFETIME')
  const signals = read.list('SESSION_ANOMALY_SIGNALS')
  const unknownSignals = signals.filter((signal) => !(ANOMALY_SIGNALS as readonly string[]).includes(signal))
  if (unknownSignals.length > 0) read.problem('SESSION_ANOMALY_SIGNALS', `${unknownSignals.join(', ')}: only ${ANOMALY_SIGNALS.join(' and ')} are signals`)

  return {
    cookieName,
    // Releases before 0.2.0 named it __Host-<name>: read and written beside the new name only
    // while a rolling upgrade from 0.1.0 runs (plugins/previous-cookie-name.ts).
    rollingUpgrade: readRollingUpgrade(read, cookieBase, isHttps, Date.now()),
    secureCookie: isHttps,
    secrets,
    idleTimeoutMs,
    recentSignInMs: read.duration('RECENT_SIGN_IN'),
    absoluteTimeoutMs,
    loginTimeoutMs: read.duration('LOGIN_TIMEOUT'),
    maxLoginsPerBrowser: read.integer('LOGIN_MAX_PER_BROWSER'),
    deviceBound: deviceBoundOn ? { cookieName: `${cookieName}-bound`, cookieLifetimeMs: boundCookieLifetimeMs } : undefined,
    anomaly: {
      action: read.choice('SESSION_ANOMALY') as AnomalyAction,
      signals: ANOMALY_SIGNALS.filter((signal) => signals.includes(signal))
    }
  }
}

/** TOKEN_KEYS: the first seals, all open. */
export function readTokenKeys (read: DeclaredReader): TokenKey[] {
  const spec = read.required('TOKEN_KEYS')
  if (spec === '') return []
  try {
    return parseTokenKeys(spec)
  } catch (error) {
    read.problem('TOKEN_KEYS', (error as Error).message)
    return []
  }
}
