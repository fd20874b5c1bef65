// Secrets for tests: a session secret and a fresh token key in the forms the configuration takes.
// Apart from helpers/bff.ts so that a unit test needing one loads no app.
import { generateKeyPairSync, randomBytes } from 'node:crypto'

export const TEST_SESSION_SECRET = 'test-session-secret-0123456789-abcdefghij'
export const testTokenKey = (id = 'k1'): string => `${id}:${randomBytes(32).toString('base64')}`
/** An ASSERTION_KEYS entry: a new P-256 (or Ed25519) private key, PKCS#8 in base64. */
export const testAssertionKey = (id = 'a1', type: 'p256' | 'ed25519' = 'p256'): string => {
  const { privateKey } = type === 'p256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519')
  return `${id}:${privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64')}`
}
