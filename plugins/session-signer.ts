// The session cookie's signer for @fastify/session (its `secret` option takes a signer object).
import type { UnsignResult } from '@fastify/cookie'
import { createBoundedMemo } from '../src/bounded-memo.js'

export interface CookieSigner {
  sign: (value: string) => string
  unsign: (input: string) => UnsignResult
}

/** Signed-in sessions whose cookie stays verified; beyond it the least recently verified go. */
const VERIFIED_ENTRIES = 4096

/**
 * A cookie signer (@fastify/cookie's Signer), remembering the cookies it verified: a valid signature is a pure
 * function of the session id (the secrets are fixed for the process), so each signed-in session's
 * cookie is verified once, and its signature (which @fastify/session computes again for every
 * session it restores) is known from then on. Only valid cookies are remembered: new sessions
 * (a fresh id on every request without a cookie) and forged cookies are worked out each time, so
 * neither can push the signed-in sessions out. A cookie signed with an older secret is
 * remembered with its re-signed form.
 */
export function rememberingSigner (signer: CookieSigner, entries = VERIFIED_ENTRIES): CookieSigner {
  const verified = createBoundedMemo<UnsignResult>(entries)
  const signatures = createBoundedMemo<string>(entries)
  return {
    sign: (value) => signatures.get(value) ?? signer.sign(value),
    unsign: (input) => {
      const remembered = verified.get(input)
      if (remembered !== undefined) return remembered
      const result = signer.unsign(input)
      if (result.valid && result.value !== null) {
        verified.set(input, result)
        // Valid under the first secret: the input is the id's signature (renew says otherwise).
        signatures.set(result.value, result.renew ? signer.sign(result.value) : input)
      }
      return result
    }
  }
}
