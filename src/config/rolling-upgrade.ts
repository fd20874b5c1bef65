// ROLLING_UPGRADE_FROM_0_1 (docs/guide/upgrade.md, "Rolling upgrades"): while replicas of 0.1.0 are
// replaced one at a time, the session cookie's 0.1.0 name (__Host-<name>) is read beside today's,
// for the sessions 0.1.0 made (plugins/previous-cookie-name.ts). A page's script can set that name,
// so the mode is given the time it ends by, never merely switched on, and it is said at start while
// it runs.
import type { DeclaredReader } from './declared-reader.js'

export interface RollingUpgrade {
  /** 0.1.0's name for the session cookie. */
  previousCookieName: string
  /** Epoch milliseconds: from then on the old name means nothing again. */
  until: number
}

/** A rolling upgrade takes minutes to hours; a longer window is a forgotten one. */
const LONGEST_MS = 7 * 24 * 3_600_000
/** A date and time with its zone: 2026-12-01T18:00:00Z, 2026-12-01T19:00+01:00. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

export function readRollingUpgrade (read: DeclaredReader, cookieBase: string, isHttps: boolean, now: number): RollingUpgrade | undefined {
  const name = 'ROLLING_UPGRADE_FROM_0_1'
  const value = read.raw(name)
  if (value === undefined || ['off', 'false', '0', 'no'].includes(value.toLowerCase())) return undefined
  const example = new Date(now + 2 * 3_600_000).toISOString().replace(/:\d{2}\.\d{3}Z$/, 'Z')
  if (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) {
    read.problem(name, `must be the time the rolling upgrade from 0.1.0 ends by, with its zone (e.g. ${example}), at most 7 days ahead, or off: "${value}" is not one. Until then the cookie of 0.1.0, which a page's script can set, is read for the sessions 0.1.0 made`)
    return undefined
  }
  const until = Date.parse(value)
  if (until <= now) {
    read.warn(name, `ended at ${new Date(until).toISOString()}: the cookie of 0.1.0 is no longer read; remove the variable`)
    return undefined
  }
  if (until - now > LONGEST_MS) {
    read.problem(name, `ends ${new Date(until).toISOString()}, more than 7 days ahead: give the time the rolling upgrade from 0.1.0 will be over by`)
    return undefined
  }
  // Over plain http the cookie never had the __Host- prefix: there is no other name to read.
  if (!isHttps) return undefined
  const previousCookieName = `__Host-${cookieBase}`
  read.warn(name, `a rolling upgrade from 0.1.0 runs until ${new Date(until).toISOString()}: the cookie ${previousCookieName} is read for the sessions 0.1.0 made (a page's script can set that name). Remove the variable once no replica runs 0.1.0`)
  return { previousCookieName, until }
}
