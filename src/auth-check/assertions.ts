// The assertion a site's own server reads to know who is signed in: a JWT media-bff signs (ES256
// or EdDSA, src/auth-check/assertion-keys.ts) for at most five minutes. It says who (sub, name,
// email), where (tenant), with which scopes, since when (auth_time) and which session (sid: the
// session's handle, as the person's own session list shows it, never the cookie's id); never a token.
import { randomUUID } from 'node:crypto'
import { SignJWT } from 'jose'
import type { AssertionKey } from './assertion-keys.js'

export interface AssertionSettings {
  /** The first signs. */
  keys: readonly AssertionKey[]
  /** `iss`: PUBLIC_URL, with BASE_PATH. */
  issuer: string
  /** `aud` (ASSERTION_AUDIENCE). */
  audience: string
  /** How long an assertion holds (ASSERTION_LIFETIME), at most five minutes. */
  lifetimeMs: number
}

/** Who an assertion is about. */
export interface Subject {
  /** The person's id at the media service; undefined when the service never said. */
  userId: string | undefined
  name: string | undefined
  email: string | undefined
  tenant: string
  scopes: readonly string[]
  /** The session's handle. */
  handle: string
  /** When the person signed in, epoch milliseconds. */
  authenticatedAt: number
}

export interface Assertion {
  jwt: string
  /** Epoch milliseconds. */
  expiresAt: number
}

export type SignAssertion = (subject: Subject, now: number, notAfter: number) => Promise<Assertion>

/**
 * Signs assertions with the first key; none when there is no key (ASSERTION_KEYS=none). An
 * assertion never outlives `notAfter` (the session's end).
 */
export function assertionSigner (settings: AssertionSettings): SignAssertion | undefined {
  const key = settings.keys[0]
  if (key === undefined) return undefined
  return async (subject, now, notAfter) => {
    const issuedAt = Math.floor(now / 1000)
    const expiresAt = Math.max(issuedAt + 1, Math.floor(Math.min(now + settings.lifetimeMs, notAfter) / 1000))
    const claims: Record<string, unknown> = {
      tenant: subject.tenant,
      scope: subject.scopes.join(' '),
      auth_time: Math.floor(subject.authenticatedAt / 1000),
      sid: subject.handle
    }
    if (subject.name !== undefined) claims.name = subject.name
    if (subject.email !== undefined) claims.email = subject.email
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.id, typ: 'JWT' })
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt(issuedAt)
      .setNotBefore(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(randomUUID())
    if (subject.userId !== undefined) jwt.setSubject(subject.userId)
    return { jwt: await jwt.sign(key.privateKey), expiresAt: expiresAt * 1000 }
  }
}
