// PKCE (RFC 7636). The challenge is checked for shape at authorize time and the verifier against
// it at the token endpoint.
import { createHash } from 'node:crypto'
import { sameSecret } from '../random-token.js'

/** Verifiers and plain challenges: 43 to 128 unreserved characters. */
export const pkceValuePattern = /^[A-Za-z0-9\-._~]{43,128}$/

export function verifyPkce (method: 'S256' | 'plain', challenge: string, verifier: string | undefined): boolean {
  if (verifier === undefined || !pkceValuePattern.test(verifier)) return false
  const derived = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier
  return sameSecret(derived, challenge)
}
