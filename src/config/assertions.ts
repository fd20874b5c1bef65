// What the site's own servers are told of who is signed in (GET /auth/check): the keys media-bff
// signs its assertions with, their audience and lifetime, and how long a session's answer is kept.
import type { DeclaredReader } from './declared-reader.js'
import { readOptionalSetting } from './unset-on-purpose.js'
import { assertionKeyOf, type AssertionKey } from '../auth-check/assertion-keys.js'
import type { AssertionSettings } from '../auth-check/assertions.js'

export interface SiteServerSettings {
  assertions: AssertionSettings
  /**
   * ASSERTION_KEYS is unset: the instance makes a key as it starts (routes/auth-check.ts; the
   * configuration itself stays the same for the same variables), and its assertions verify
   * against its own JWK Set only.
   */
  keysMadeAtStart: boolean
  /** How long GET /auth/check keeps a session's answer (AUTH_CHECK_CACHE); 0: not at all. */
  checkKeepMs: number
}

export function readSiteServerSettings (read: DeclaredReader, issuer: string, production: boolean): SiteServerSettings {
  const raw = read.raw('ASSERTION_KEYS')
  // `none`: no assertions at all (src/config/unset-on-purpose.ts); unset: a key made at start.
  const spec = readOptionalSetting(read, 'ASSERTION_KEYS', production)
  const keys: AssertionKey[] = []
  if (spec !== undefined) {
    const entries = read.list('ASSERTION_KEYS')
    for (const entry of entries) {
      try {
        keys.push(assertionKeyOf(entry))
      } catch (error) {
        read.problem('ASSERTION_KEYS', (error as Error).message)
      }
    }
    if (new Set(keys.map((key) => key.id)).size !== keys.length) read.problem('ASSERTION_KEYS', 'two keys have the same id')
  }
  const keysMadeAtStart = raw === undefined
  const audience = read.string('ASSERTION_AUDIENCE')
  return {
    assertions: { keys, issuer, audience: audience === '' ? issuer : audience, lifetimeMs: read.duration('ASSERTION_LIFETIME') },
    keysMadeAtStart,
    checkKeepMs: read.duration('AUTH_CHECK_CACHE')
  }
}
