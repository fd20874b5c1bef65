// The keys media-bff signs its assertions with (ASSERTION_KEYS), and their public halves, which
// GET /.well-known/jwks.json serves. The first key signs; every listed key is served, so a new key
// can be published before it signs (verifiers cache the set) and an old one kept until the last
// assertion it signed has expired. P-256 keys sign ES256, Ed25519 keys EdDSA.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import type { Static } from 'typebox'
import type { PublicJwk as PublicJwkSchema } from '../contract/site-servers.js'

export type AssertionAlgorithm = PublicJwk['alg']

/** A public key as a JWK Set carries it (RFC 7517; src/contract/site-servers.ts). */
export type PublicJwk = Static<typeof PublicJwkSchema>

export interface AssertionKey {
  /** The key id (`kid`) assertions name and the JWK Set lists. */
  id: string
  alg: AssertionAlgorithm
  privateKey: KeyObject
  publicJwk: PublicJwk
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/

/** One `id:base64` entry: a DER private key (standard or url-safe base64). Throws saying what is wrong. */
export function assertionKeyOf (entry: string): AssertionKey {
  const colon = entry.indexOf(':')
  const id = entry.slice(0, colon)
  if (colon < 0 || !KEY_ID.test(id)) throw new Error('each entry is id:base64 with an id of letters, digits, . _ - (at most 64)')
  const der = Buffer.from(entry.slice(colon + 1), 'base64')
  // PKCS#8, or SEC1 for an EC key (what `openssl genpkey -outform DER` writes for one).
  for (const type of ['pkcs8', 'sec1'] as const) {
    try {
      return keyOf(id, createPrivateKey({ key: der, format: 'der', type }))
    } catch (error) {
      if (error instanceof KeyTypeError) throw error
    }
  }
  throw new Error(`key ${id} is not a base64 PKCS#8 (or, for P-256, SEC1) private key`)
}

/** A key made now, for an instance given none: its assertions verify only against its own JWK Set. */
export function makeAssertionKey (id: string): AssertionKey {
  return keyOf(id, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)
}

/** The JWK Set of these keys, in their order. */
export function jwksOf (keys: readonly AssertionKey[]): { keys: PublicJwk[] } {
  return { keys: keys.map((key) => key.publicJwk) }
}

function keyOf (id: string, privateKey: KeyObject): AssertionKey {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' })
  if (privateKey.asymmetricKeyType === 'ec' && jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string') {
    return { id, alg: 'ES256', privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid: id, alg: 'ES256', use: 'sig' } }
  }
  if (privateKey.asymmetricKeyType === 'ed25519' && typeof jwk.x === 'string') {
    return { id, alg: 'EdDSA', privateKey, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: id, alg: 'EdDSA', use: 'sig' } }
  }
  throw new KeyTypeError(`key ${id} is neither a P-256 (ES256) nor an Ed25519 (EdDSA) key`)
}

/** A key that is read, and of a kind assertions are not signed with. */
class KeyTypeError extends Error {}
