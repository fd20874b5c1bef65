// Device-bound sessions (DEVICE_BOUND_SESSIONS; docs/guide/security.md, "Device-bound sessions"),
// the WICG DBSC protocol as Chrome ships it, in one place:
//   offer     a signed-in answer names where to register and a challenge;
//   register  the browser's new key signs the challenge: the session is bound to that key (once:
//             a bound session is never bound again), and gets its short-lived cookie;
//   refresh   when that cookie runs out the browser asks for another; it is asked to sign a fresh
//             challenge (403 Secure-Session-Challenge), and only the registered key's proof gets
//             one;
//   fault     every signed-in call of a bound session shows a cookie that holds, or is refused.
// The binding lives in the session's record (whichever replica or store holds it); challenges and
// cookies are signed, and a challenge is taken once across replicas (`takeOnce`).
import { randomBytes } from 'node:crypto'
import { createMacs } from './macs.js'
import { createChallenges } from './challenges.js'
import { createBoundCookies, type BoundCookieFault } from './bound-cookie.js'
import { ProofError, bindingKeyOf, readRefreshProof, readRegistrationProof, type BindingKey, type ProofFault } from './proofs.js'
import { END_BINDING, challengeHeader, readSfString, registrationHeader, sessionInstructions } from './wire.js'

/** A session's binding, as its record holds it. */
export interface Binding {
  /** The DBSC session identifier: random, and never the session's id or handle. */
  id: string
  key: BindingKey
  boundAt: number
}

/** How long a registration's challenge holds: the browser registers as the answer arrives. */
export const REGISTRATION_CHALLENGE_MS = 5 * 60_000
/**
 * A session is offered, and takes, a binding only this soon after its sign-in: the browser that
 * signed in registers as its first page loads, and a copy of the cookie taken later cannot bind the
 * session to a key of its own. A session not bound by then stays unbound.
 */
export const REGISTRATION_WINDOW_MS = 2 * 60_000
/**
 * A refresh's challenge holds for as long as the cookie it will renew and this much more: one
 * handed out with a cookie is still good when that cookie runs out.
 */
const REFRESH_CHALLENGE_SLACK_MS = 5 * 60_000

export type BindingFault = ProofFault | 'already_bound' | 'too_late' | 'device_changed'

export interface BoundCookie {
  name: string
  value: string
  maxAgeS: number
}

export type RegistrationOutcome =
  | { kind: 'bound', binding: Binding, cookie: BoundCookie, instructions: Record<string, unknown>, challenge: string }
  /** 403 with a fresh offer: the challenge ran out, or was used. */
  | { kind: 'again', offer: string }
  | { kind: 'refused', fault: BindingFault }

export type RefreshOutcome =
  | { kind: 'renewed', cookie: BoundCookie, instructions: Record<string, unknown>, challenge: string }
  /** 403 with Secure-Session-Challenge: sign this. */
  | { kind: 'challenge', challenge: string }
  /** There is no such binding (the session ended, or it is another's): the browser drops its own. */
  | { kind: 'end', body: typeof END_BINDING }
  | { kind: 'refused', fault: BindingFault }

export interface DeviceBindingOptions {
  secrets: readonly string[]
  cookieName: string
  cookieLifetimeMs: number
  secureCookie: boolean
  publicOrigin: string
  basePath: string
  /** Paths under which nothing needs the short-lived cookie (sign-in, its callback, the proxy's check). */
  excludedPaths: readonly string[]
  /** Hosts of the other origins whose pages call media-bff (ALLOWED_ORIGINS). */
  refreshInitiators: readonly string[]
  /** Takes a challenge once across replicas; false when it was taken before. */
  takeOnce: (nonce: string, ttlMs: number) => Promise<boolean>
}

export interface DeviceBinding {
  readonly registerPath: string
  readonly refreshPath: string
  readonly cookieName: string
  /**
   * The Secure-Session-Registration value for a signed-in session not bound yet (by its handle),
   * while it may still be bound (REGISTRATION_WINDOW_MS after its sign-in); otherwise undefined.
   */
  offer: (session: Registering, now: number) => string | undefined
  register: (proof: string | undefined, session: Registering, now: number) => Promise<RegistrationOutcome>
  refresh: (sessionIdHeader: string | undefined, proof: string | undefined, bound: Binding | undefined, now: number) => Promise<RefreshOutcome>
  /** undefined when the call's short-lived cookie holds for the session's binding. */
  fault: (cookie: string | undefined, bound: Binding, now: number) => BoundCookieFault | undefined
  /** When a short-lived cookie runs out (epoch ms); undefined when it is none media-bff made. */
  expiresAt: (cookie: string | undefined) => number | undefined
}

/** The session a registration is for. */
export interface Registering {
  handle: string
  authenticatedAt: number
  binding: Binding | undefined
}

export function createDeviceBinding (options: DeviceBindingOptions): DeviceBinding {
  const { basePath, cookieName, cookieLifetimeMs } = options
  const challenges = createChallenges(createMacs(options.secrets, 'device binding challenges'))
  const cookies = createBoundCookies(createMacs(options.secrets, 'device-bound cookies'))
  const registerPath = `${basePath}/auth/device/register`
  const refreshPath = `${basePath}/auth/device/refresh`
  const cookieAttributes = `Path=/;${options.secureCookie ? ' Secure;' : ''} HttpOnly; SameSite=Strict`
  const instructionsFor = (bindingId: string): Record<string, unknown> => sessionInstructions({
    bindingId,
    refreshUrl: refreshPath,
    origin: options.publicOrigin,
    host: new URL(options.publicOrigin).hostname,
    excluded: options.excludedPaths,
    initiators: options.refreshInitiators,
    cookieName,
    cookieAttributes
  })
  const renewal = (bindingId: string, now: number): { cookie: BoundCookie, instructions: Record<string, unknown>, challenge: string } => ({
    cookie: { name: cookieName, value: cookies.make(bindingId, now, cookieLifetimeMs), maxAgeS: Math.floor(cookieLifetimeMs / 1000) },
    instructions: instructionsFor(bindingId),
    challenge: challengeHeader(challenges.issue('refresh', bindingId, now, cookieLifetimeMs + REFRESH_CHALLENGE_SLACK_MS), bindingId)
  })
  const faultOf = (error: unknown): BindingFault => {
    if (error instanceof ProofError) return error.fault
    throw error
  }

  return {
    registerPath,
    refreshPath,
    cookieName,
    offer: (session, now) => session.binding !== undefined || now - session.authenticatedAt > REGISTRATION_WINDOW_MS
      ? undefined
      : registrationHeader(registerPath, challenges.issue('register', session.handle, now, REGISTRATION_CHALLENGE_MS)),
    async register (proofHeader, { handle, authenticatedAt, binding: bound }, now) {
      if (bound !== undefined) return { kind: 'refused', fault: 'already_bound' }
      if (now - authenticatedAt > REGISTRATION_WINDOW_MS) return { kind: 'refused', fault: 'too_late' }
      const proof = readSfString(proofHeader)
      if (proof === undefined) return { kind: 'refused', fault: 'malformed' }
      let read: Awaited<ReturnType<typeof readRegistrationProof>>
      try {
        read = await readRegistrationProof(proof)
      } catch (error) {
        return { kind: 'refused', fault: faultOf(error) }
      }
      const verdict = challenges.check(read.jti, 'register', handle, now)
      if (!verdict.ok && verdict.why === 'forged') return { kind: 'refused', fault: 'challenge' }
      if (!verdict.ok || !await options.takeOnce(verdict.nonce, verdict.expiresAt - now + 1000)) {
        return { kind: 'again', offer: registrationHeader(registerPath, challenges.issue('register', handle, now, REGISTRATION_CHALLENGE_MS)) }
      }
      const binding: Binding = { id: randomBytes(16).toString('base64url'), key: read.key, boundAt: now }
      return { kind: 'bound', binding, ...renewal(binding.id, now) }
    },
    async refresh (sessionIdHeader, proofHeader, bound, now) {
      const id = readSfString(sessionIdHeader)
      if (bound === undefined || id !== bound.id) return { kind: 'end', body: END_BINDING }
      const fresh = { kind: 'challenge', challenge: challengeHeader(challenges.issue('refresh', bound.id, now, cookieLifetimeMs + REFRESH_CHALLENGE_SLACK_MS), bound.id) } as const
      if (proofHeader === undefined) return fresh
      const proof = readSfString(proofHeader)
      if (proof === undefined) return { kind: 'refused', fault: 'malformed' }
      let jti: string
      try {
        jti = (await readRefreshProof(proof, bound.key)).jti
      } catch (error) {
        return { kind: 'refused', fault: faultOf(error) }
      }
      const verdict = challenges.check(jti, 'refresh', bound.id, now)
      // Signed by the key over a challenge that ran out, was used, or is not one media-bff can read
      // (a secret since dropped): the key's holder signs a new one. Only another key is refused.
      if (!verdict.ok || !await options.takeOnce(verdict.nonce, verdict.expiresAt - now + 1000)) return fresh
      return { kind: 'renewed', ...renewal(bound.id, now) }
    },
    fault: (cookie, bound, now) => cookies.fault(cookie, bound.id, now),
    expiresAt: (cookie) => cookies.expiresAt(cookie)
  }
}

/** A session record's binding as read from the store, or undefined (none, or not one). */
export function bindingOf (value: unknown): Binding | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const { id, key, boundAt } = value as Record<string, unknown>
  const bindingKey = bindingKeyOf(key)
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(id) || bindingKey === undefined || typeof boundAt !== 'number') return undefined
  return { id, key: bindingKey, boundAt }
}
