// The proofs of device binding (src/device-binding/proofs.ts): what Chrome sends is taken (the key
// as `jwk` in the header, or as `key` in the payload as the drafts had it; ES256 or RS256;
// nothing but `jti` asked of the payload), and nothing else is: another type, another algorithm
// (none, HS256), a private or short key, a signature by another key, a proof too long.
import t from 'tap'
import fc from 'fast-check'
import { generateKeyPairSync, sign as signWith, type KeyObject } from 'node:crypto'
import { ProofError, bindingKeyOf, readRefreshProof, readRegistrationProof, type BindingKey } from '../../src/device-binding/proofs.js'

const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

function ecKey () {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = publicKey.export({ format: 'jwk' })
  return { privateKey, jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } }
}

function rsaKey (bits = 2048) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits })
  const jwk = publicKey.export({ format: 'jwk' })
  return { privateKey, jwk: { kty: 'RSA', n: jwk.n, e: jwk.e } }
}

function jws (header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64(header)}.${b64(payload)}`
  const signature = header.alg === 'RS256'
    ? signWith('sha256', Buffer.from(input), key)
    : signWith('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
  return `${input}.${signature.toString('base64url')}`
}

async function fault (work: Promise<unknown>): Promise<string> {
  try {
    await work
    return 'taken'
  } catch (error) {
    if (error instanceof ProofError) return error.fault
    throw error
  }
}

t.test('a registration as Chrome sends it: ES256, the key as jwk in the header, jti alone', async (t) => {
  const { privateKey, jwk } = ecKey()
  const read = await readRegistrationProof(jws({ alg: 'ES256', typ: 'dbsc+jwt', jwk }, { jti: 'the challenge' }, privateKey))
  t.same(read, { jti: 'the challenge', key: { alg: 'ES256', jwk } })
})

t.test('the drafts\' shape too: the key as `key` in the payload, with aud and iat', async (t) => {
  const { privateKey, jwk } = ecKey()
  const read = await readRegistrationProof(jws({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti: 'c', aud: 'https://example.org/reg', iat: 1_700_000_000, key: jwk }, privateKey))
  t.equal(read.jti, 'c')
})

t.test('RS256 with a 2048-bit key; a 1024-bit one is refused', async (t) => {
  const strong = rsaKey()
  t.equal((await readRegistrationProof(jws({ alg: 'RS256', typ: 'dbsc+jwt', jwk: strong.jwk }, { jti: 'c' }, strong.privateKey))).key.alg, 'RS256')
  const weak = rsaKey(1024)
  t.equal(await fault(readRegistrationProof(jws({ alg: 'RS256', typ: 'dbsc+jwt', jwk: weak.jwk }, { jti: 'c' }, weak.privateKey))), 'key')
})

t.test('what is refused, and why', async (t) => {
  const { privateKey, jwk } = ecKey()
  const other = ecKey()
  const good = { alg: 'ES256', typ: 'dbsc+jwt', jwk }
  t.equal(await fault(readRegistrationProof(jws({ ...good, typ: 'JWT' }, { jti: 'c' }, privateKey))), 'wrong_type')
  t.equal(await fault(readRegistrationProof(`${b64({ ...good, alg: 'none' })}.${b64({ jti: 'c' })}.`)), 'malformed', 'alg none: no signature at all')
  t.equal(await fault(readRegistrationProof(`${b64({ ...good, alg: 'none' })}.${b64({ jti: 'c' })}.AA`)), 'algorithm')
  t.equal(await fault(readRegistrationProof(`${b64({ ...good, alg: 'HS256' })}.${b64({ jti: 'c' })}.AAAA`)), 'algorithm')
  t.equal(await fault(readRegistrationProof(jws(good, { jti: 'c' }, other.privateKey))), 'signature', 'signed by another key than it names')
  t.equal(await fault(readRegistrationProof(jws({ ...good, jwk: { ...jwk, d: 'AAAA' } }, { jti: 'c' }, privateKey))), 'key', 'a private member')
  t.equal(await fault(readRegistrationProof(jws({ ...good, jwk: { ...jwk, crv: 'P-384' } }, { jti: 'c' }, privateKey))), 'key')
  t.equal(await fault(readRegistrationProof(jws({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti: 'c' }, privateKey))), 'key', 'no key at all')
  t.equal(await fault(readRegistrationProof(jws(good, { nonce: 'c' }, privateKey))), 'challenge', 'no jti')
  t.equal(await fault(readRegistrationProof(jws(good, { jti: 'c'.repeat(600) }, privateKey))), 'challenge', 'a jti too long')
  t.equal(await fault(readRegistrationProof(jws(good, { jti: 'c', pad: 'x'.repeat(9000) }, privateKey))), 'malformed', 'a proof too long')
  t.equal(await fault(readRegistrationProof('not.a.jwt!')), 'malformed')
  t.equal(await fault(readRegistrationProof(`${b64('[1]')}.${b64({ jti: 'c' })}.AA`)), 'malformed', 'a header that is no object')
})

t.test('a refresh: the registered key, whatever key the proof names', async (t) => {
  const { privateKey, jwk } = ecKey()
  const other = ecKey()
  const registered: BindingKey = { alg: 'ES256', jwk: jwk as BindingKey['jwk'] } as BindingKey
  t.same(await readRefreshProof(jws({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti: 'next' }, privateKey), registered), { jti: 'next' })
  t.equal(await fault(readRefreshProof(jws({ alg: 'ES256', typ: 'dbsc+jwt', jwk: other.jwk }, { jti: 'next' }, other.privateKey), registered)), 'signature', 'another key, naming itself')
  const rsa = rsaKey()
  t.equal(await fault(readRefreshProof(jws({ alg: 'RS256', typ: 'dbsc+jwt' }, { jti: 'next' }, rsa.privateKey), registered)), 'algorithm', 'another algorithm than the key\'s')
})

t.test('a key read back from a record is checked again', async (t) => {
  const { jwk } = ecKey()
  t.same(bindingKeyOf({ alg: 'ES256', jwk: { ...jwk, extra: 1 } }), { alg: 'ES256', jwk }, 'its public members only')
  t.equal(bindingKeyOf({ alg: 'EdDSA', jwk }), undefined)
  t.equal(bindingKeyOf({ alg: 'ES256', jwk: { kty: 'EC' } }), undefined)
  t.equal(bindingKeyOf('ES256'), undefined)
})

t.test('any text at all is refused cleanly, never thrown past a ProofError', async () => {
  await fc.assert(fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 200 }), async (header, payload) => {
    const proof = `${b64(header)}.${b64(payload)}.${b64('signature')}`
    for (const candidate of [proof, header, `${header}.${payload}.x`]) {
      const outcome = await fault(readRegistrationProof(candidate))
      if (outcome === 'taken') throw new Error(`taken: ${candidate}`)
    }
  }), { numRuns: 300 })
})
