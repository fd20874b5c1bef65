// The proofs a browser sends in Secure-Session-Response (the WICG DBSC protocol): a JWT typed
// `dbsc+jwt`, signed with the session's key, whose `jti` is a challenge media-bff issued. At
// registration the key is new and travels with the proof: as `jwk` in its header (Chrome as it
// ships), or as `key` in its payload (the drafts before). At a refresh the key is the one
// registered, and whatever key the proof names is ignored. What Chrome sends is accepted and
// nothing more is required: no `aud`, no `iat` (the challenge is what makes a proof fresh, and
// it is ours).
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose'

/** What media-bff offers in Secure-Session-Registration, preferred first. */
export const BINDING_ALGORITHMS = ['ES256', 'RS256'] as const
export type BindingAlgorithm = typeof BINDING_ALGORITHMS[number]

/** A registered key's public part, nothing else of what the browser sent. */
export type BindingKey =
  | { alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: string, y: string } }
  | { alg: 'RS256', jwk: { kty: 'RSA', n: string, e: string } }

/** Why a proof was not taken (the audit event's `reason`). */
export type ProofFault = 'malformed' | 'wrong_type' | 'algorithm' | 'key' | 'signature' | 'challenge'

export class ProofError extends Error {
  override name = 'ProofError'
  constructor (readonly fault: ProofFault, message: string) {
    super(message)
  }
}

/** The longest proof read: an RS256 registration with a 4096-bit key is under 2 KiB. */
export const MAX_PROOF_LENGTH = 8192
const MAX_JTI_LENGTH = 512
const B64URL = /^[A-Za-z0-9_-]+$/
/** An RSA key shorter than this is refused (jose refuses them too). */
const MIN_RSA_BITS = 2048

/** A registration proof: its challenge and the new key, once its signature holds with that key. */
export async function readRegistrationProof (proof: string): Promise<{ jti: string, key: BindingKey }> {
  const { header, payload } = partsOf(proof)
  const alg = algorithmOf(header)
  const key = keyOf(alg, header.jwk ?? payload.key)
  return { jti: await verified(proof, key), key }
}

/** A refresh proof's challenge, once its signature holds with the registered key. */
export async function readRefreshProof (proof: string, key: BindingKey): Promise<{ jti: string }> {
  const { header } = partsOf(proof)
  if (algorithmOf(header) !== key.alg) throw new ProofError('algorithm', `the session's key is ${key.alg}`)
  return { jti: await verified(proof, key) }
}

async function verified (proof: string, key: BindingKey): Promise<string> {
  let payload: Uint8Array
  try {
    payload = (await compactVerify(proof, await importJWK(key.jwk as JWK, key.alg), { algorithms: [key.alg] })).payload
  } catch {
    throw new ProofError('signature', 'the proof is not signed by the session\'s key')
  }
  let jti: unknown
  try {
    jti = (JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown> | null)?.jti
  } catch {
    throw new ProofError('malformed', 'the proof\'s payload is not JSON')
  }
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) throw new ProofError('challenge', 'the proof carries no challenge (jti)')
  return jti
}

function partsOf (proof: string): { header: Record<string, unknown>, payload: Record<string, unknown> } {
  const segments = proof.split('.')
  if (proof.length > MAX_PROOF_LENGTH || segments.length !== 3 || !segments.every((segment) => B64URL.test(segment))) {
    throw new ProofError('malformed', 'the proof is not a compact JWT')
  }
  let header: unknown
  let payload: unknown
  try {
    header = decodeProtectedHeader(proof)
    payload = JSON.parse(Buffer.from(segments[1] ?? '', 'base64url').toString('utf8'))
  } catch {
    throw new ProofError('malformed', 'the proof\'s header or payload is not JSON')
  }
  if (!isObject(header) || !isObject(payload)) throw new ProofError('malformed', 'the proof\'s header or payload is not a JSON object')
  if (header.typ !== 'dbsc+jwt') throw new ProofError('wrong_type', 'the proof is not typed dbsc+jwt')
  // Extensions a browser never sends (an unencoded payload, critical headers) are not taken.
  if ('crit' in header || 'b64' in header) throw new ProofError('malformed', 'the proof asks for JWS extensions')
  return { header, payload }
}

function algorithmOf (header: Record<string, unknown>): BindingAlgorithm {
  const alg = header.alg
  if (typeof alg !== 'string' || !(BINDING_ALGORITHMS as readonly string[]).includes(alg)) throw new ProofError('algorithm', `the proof's algorithm is none of ${BINDING_ALGORITHMS.join(', ')}`)
  return alg as BindingAlgorithm
}

/** The public key a registration names, checked member by member; a private member refuses it. */
function keyOf (alg: BindingAlgorithm, jwk: unknown): BindingKey {
  if (!isObject(jwk) || 'd' in jwk) throw new ProofError('key', 'the proof names no public key')
  const text = (value: unknown, length?: number): value is string => typeof value === 'string' && B64URL.test(value) && (length === undefined || value.length === length)
  if (alg === 'ES256') {
    // A P-256 coordinate is 32 bytes: 43 base64url characters.
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !text(jwk.x, 43) || !text(jwk.y, 43)) throw new ProofError('key', 'an ES256 proof names a P-256 key')
    return { alg, jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } }
  }
  if (jwk.kty !== 'RSA' || !text(jwk.n) || !text(jwk.e) || jwk.n.length > 1400 || jwk.e.length > 8) throw new ProofError('key', 'an RS256 proof names an RSA key')
  if (Buffer.from(jwk.n, 'base64url').length * 8 < MIN_RSA_BITS) throw new ProofError('key', `an RSA key has at least ${MIN_RSA_BITS} bits`)
  return { alg, jwk: { kty: 'RSA', n: jwk.n, e: jwk.e } }
}

/** A key as read back from a session record (written by keyOf), or undefined. */
export function bindingKeyOf (value: unknown): BindingKey | undefined {
  if (!isObject(value) || typeof value.alg !== 'string' || !(BINDING_ALGORITHMS as readonly string[]).includes(value.alg)) return undefined
  try {
    return keyOf(value.alg as BindingAlgorithm, value.jwk)
  } catch {
    return undefined
  }
}

function isObject (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
