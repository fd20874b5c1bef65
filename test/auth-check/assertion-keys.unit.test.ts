// ASSERTION_KEYS as the configuration reads it, the JWK Set made of it, and the identity headers
// of a check, whatever the media service said a person's name or e-mail is.
import t from 'tap'
import fc from 'fast-check'
import { generateKeyPairSync } from 'node:crypto'
import { jwtVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose'
import { loadConfig } from '../../src/config/config.js'
import { jwksOf } from '../../src/auth-check/assertion-keys.js'
import { assertionSigner } from '../../src/auth-check/assertions.js'
import { headerValue, identityHeaders } from '../../src/auth-check/identity-headers.js'
import { problemsOf, validEnv as valid } from '../helpers/config-env.js'
import { testAssertionKey } from '../helpers/secrets.js'

t.test('ASSERTION_KEYS: P-256 and Ed25519, the first signs, every one served', async (t) => {
  const config = loadConfig({ ...valid, ASSERTION_KEYS: `${testAssertionKey('new', 'ed25519')},${testAssertionKey('old')}` })
  t.same(config.assertions.keys.map((key) => [key.id, key.alg]), [['new', 'EdDSA'], ['old', 'ES256']])
  t.same(jwksOf(config.assertions.keys).keys.map((key) => key.kid), ['new', 'old'])
  t.equal(config.assertions.issuer, 'https://media.example.org')
  t.equal(config.assertions.audience, 'https://media.example.org', 'the audience: PUBLIC_URL unless set')
  t.equal(loadConfig({ ...valid, BASE_PATH: '/media-bff' }).assertions.issuer, 'https://media.example.org/media-bff', 'with BASE_PATH')
  t.equal(config.assertions.lifetimeMs, 120_000)
  t.equal(config.checkKeepMs, 5_000)
  t.equal(config.keysMadeAtStart, false)
  const made = loadConfig(valid)
  t.equal(made.keysMadeAtStart, true, 'unset: a key made at start (test/auth-check/auth-check.test.ts)')
  t.same(made.assertions.keys, [], 'by the instance, not the configuration, which the same variables make the same')
})

t.test('ASSERTION_KEYS refused: not a key, a key of another kind, two of one id', async (t) => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64')
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64')
  t.same(problemsOf({ ...valid, ASSERTION_KEYS: 'a1:bm90IGEga2V5' }), ['ASSERTION_KEYS: key a1 is not a base64 PKCS#8 (or, for P-256, SEC1) private key'])
  t.same(problemsOf({ ...valid, ASSERTION_KEYS: `r1:${rsa}` }), ['ASSERTION_KEYS: key r1 is neither a P-256 (ES256) nor an Ed25519 (EdDSA) key'])
  t.same(problemsOf({ ...valid, ASSERTION_KEYS: `e1:${p384}` }), ['ASSERTION_KEYS: key e1 is neither a P-256 (ES256) nor an Ed25519 (EdDSA) key'])
  t.same(problemsOf({ ...valid, ASSERTION_KEYS: `${testAssertionKey('a')},${testAssertionKey('a')}` }), ['ASSERTION_KEYS: two keys have the same id'])
  t.match(problemsOf({ ...valid, ASSERTION_KEYS: 'no-colon' }), [/^ASSERTION_KEYS: each entry is id:base64/])
  t.match(problemsOf({ ...valid, ASSERTION_LIFETIME: '10m' }), [/^ASSERTION_LIFETIME: /], 'at most five minutes')
  t.match(problemsOf({ ...valid, AUTH_CHECK_CACHE: '1m' }), [/^AUTH_CHECK_CACHE: /], 'at most 30 s')
  t.equal(loadConfig({ ...valid, AUTH_CHECK_CACHE: '0' }).checkKeepMs, 0, 'zero: nothing kept')
  t.match(problemsOf({ ...valid, SESSION_IDLE_TIMEOUT: '0' }), [/^SESSION_IDLE_TIMEOUT: must be a positive duration/], 'zero only where it is declared to mean something')
})

t.test('an assertion: at most its lifetime, never past the session, verified by its key alone', async (t) => {
  const config = loadConfig({ ...valid, ASSERTION_KEYS: testAssertionKey('k'), ASSERTION_LIFETIME: '5m' })
  const sign = assertionSigner(config.assertions)
  if (sign === undefined) throw new Error('no signer')
  const subject = { userId: undefined, name: undefined, email: undefined, tenant: 't', scopes: ['basic'], handle: 'h', authenticatedAt: Date.now() - 1000 }
  const now = Date.now()
  const long = await sign(subject, now, now + 3_600_000)
  const short = await sign(subject, now, now + 10_000)
  t.equal(long.expiresAt, Math.floor((now + 300_000) / 1000) * 1000)
  t.equal(short.expiresAt, Math.floor((now + 10_000) / 1000) * 1000, 'the session\'s end')
  const keys = createLocalJWKSet(jwksOf(config.assertions.keys))
  const { payload } = await jwtVerify(long.jwt, keys, { issuer: 'https://media.example.org', audience: 'https://media.example.org' })
  t.equal(payload.sub, undefined, 'no sub when the service never said who')
  t.equal(decodeProtectedHeader(long.jwt).kid, 'k')
  const other = loadConfig({ ...valid, ASSERTION_KEYS: testAssertionKey('k') })
  await t.rejects(jwtVerify(long.jwt, createLocalJWKSet(jwksOf(other.assertions.keys))), 'a key of the same id but another key: refused')
})

t.test('identity headers: visible ASCII as it is, anything else percent-encoded, never a broken header', async (t) => {
  t.equal(headerValue('alice@example.test'), 'alice@example.test')
  t.equal(headerValue('Zoë'), 'Zo%C3%AB')
  t.equal(headerValue('a\r\nSet-Cookie: x=1'), 'a%0D%0ASet-Cookie%3A%20x%3D1')
  t.equal(headerValue(' padded '), '%20padded%20')
  t.equal(headerValue('50%41'), '50%2541', 'a literal % is encoded: it never decodes into another character')
  t.equal(headerValue(''), undefined)
  t.equal(headerValue('x'.repeat(1025)), undefined, 'too long: left out, not cut')
  t.equal(headerValue('\uD800'), undefined, 'a lone surrogate')
  const headerSafe = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/
  const plain = /^[\x21-\x24\x26-\x7e](?:[\x20-\x24\x26-\x7e]*[\x21-\x24\x26-\x7e])?$/
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 }), (name, email) => {
    const headers = identityHeaders({ userId: name, name, email, tenant: 't', scopes: ['basic'], handle: 'h', authenticatedAt: 0 }, undefined)
    if (Object.keys(headers).length !== 5) return false
    for (const value of Object.values(headers)) {
      if ((value !== '' && !headerSafe.test(value)) || value.length > 1024) return false
    }
    const user = headers['x-auth-request-user']
    // Empty only when it cannot be carried (empty, too long); else it reads back as it was.
    if (user === '') return name === '' || encodeURIComponent(name).length > 1024
    return plain.test(name) ? user === name : decodeURIComponent(user) === name
  }), { numRuns: 2000 })
})
