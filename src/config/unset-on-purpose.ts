// Four settings media-bff runs without, each at a cost nothing else would show: TRUST_PROXY
// (behind a reverse proxy, every client then has the proxy's address), METRICS_TOKEN (/metrics
// and /docs answer anyone), REDIS_URL (everything in one process's memory) and ASSERTION_KEYS
// (each instance signs with a key of its own, made at start). In production an
// unset one is named at start, with what it costs; `none` says it is left out on purpose, and
// silences that warning.
import type { DeclaredReader } from './declared-reader.js'

/** The value that says a setting is left out on purpose. */
export const ON_PURPOSE = 'none'

/** What running without each costs, as the warning says it. */
const COSTS = {
  TRUST_PROXY: 'no proxy\'s X-Forwarded-* is believed, so behind a reverse proxy every client has the proxy\'s address (one rate limit for all) and sign-ins fail over its plain http. List the proxies, or set it to none when clients reach media-bff directly',
  METRICS_TOKEN: 'GET /metrics and GET /docs answer anyone who reaches this instance. Set a token, or set it to none when neither path is reachable from outside',
  REDIS_URL: 'sessions, grants and locks live in this process\'s memory, so a second replica cannot see them (sign-ins fail there) and a restart signs everyone out. Point it at Redis, or set it to none for a single instance',
  ASSERTION_KEYS: 'assertions for the site\'s own servers are signed with a key this instance made at start, so they do not verify against another replica\'s /.well-known/jwks.json, and a restart changes it. Set keys, or set it to none when no server of the site reads assertions'
} as const

export type OptionalSetting = keyof typeof COSTS

/**
 * The raw value of `name`, or undefined when it is unset or `none`. Unset in production, a
 * warning names what the instance runs without.
 */
export function readOptionalSetting (read: DeclaredReader, name: OptionalSetting, production: boolean): string | undefined {
  const value = read.raw(name)
  if (value === undefined && production) read.warn(name, `is unset: ${COSTS[name]} (NODE_ENV=production).`)
  return value === ON_PURPOSE ? undefined : value
}
