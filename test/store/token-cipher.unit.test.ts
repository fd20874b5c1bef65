import { inspect } from 'node:util'
import t from 'tap'
import { createTokenCipher, generateTokenKey, parseTokenKeys, TokenDecryptError } from '../../src/store/token-cipher.js'

const oldKey = generateTokenKey('old')
const newKey = generateTokenKey('new')

t.test('round trip, with and without AAD', async (t) => {
  const cipher = createTokenCipher(parseTokenKeys(oldKey))
  const plaintext = JSON.stringify({ accessToken: 'at-ünïcødé-✓', refreshToken: 'rt' })
  const sealed = cipher.encrypt(plaintext, 'grant:1')
  t.match(sealed, /^v1\.old\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/, 'v1.<keyId>.<iv>.<ciphertext+tag>')
  t.notMatch(sealed, 'accessToken')
  t.equal(cipher.decrypt(sealed, 'grant:1'), plaintext)
  t.equal(cipher.decrypt(cipher.encrypt('')), '', 'empty plaintext, no AAD')
  t.not(cipher.encrypt('same', 'a'), cipher.encrypt('same', 'a'), 'a fresh IV every time')
  t.equal(cipher.currentKeyId, 'old')
  t.equal(cipher.keyIdOf(sealed), 'old')
  t.equal(cipher.keyIdOf('not sealed'), undefined)
})

t.test('rotation: a new first key seals, the old one still opens its records', async (t) => {
  const before = createTokenCipher(parseTokenKeys(oldKey))
  const sealedBefore = before.encrypt('old secret', 'grant:7')
  const after = createTokenCipher(parseTokenKeys(`${newKey},${oldKey}`))
  t.equal(after.currentKeyId, 'new')
  t.equal(after.decrypt(sealedBefore, 'grant:7'), 'old secret', 'old record still opens')
  const sealedAfter = after.encrypt('new secret', 'grant:7')
  t.equal(after.keyIdOf(sealedAfter), 'new', 'new writes use the new key')
  t.throws(() => before.decrypt(sealedAfter, 'grant:7'), TokenDecryptError, 'an instance without the new key cannot open it')
  const retired = createTokenCipher(parseTokenKeys(newKey))
  t.throws(() => retired.decrypt(sealedBefore, 'grant:7'), { name: 'TokenDecryptError', message: /unknown key id "old"/ }, 'once the old key is removed, its records no longer open')
})

t.test('tampering is detected, whatever part is changed', async (t) => {
  const cipher = createTokenCipher(parseTokenKeys(oldKey))
  const sealed = cipher.encrypt('a refresh token', 'grant:1')
  for (let i = 0; i < sealed.length; i++) {
    const original = sealed[i]
    const replacement = original === 'A' ? 'B' : 'A'
    const tampered = sealed.slice(0, i) + replacement + sealed.slice(i + 1)
    if (original === '.') continue
    t.throws(() => cipher.decrypt(tampered, 'grant:1'), TokenDecryptError, `character ${i} changed`)
  }
  const [version, keyId, iv, body] = sealed.split('.') as [string, string, string, string]
  t.throws(() => cipher.decrypt(`${version}.${keyId}.${iv}.${body.slice(0, -4)}`, 'grant:1'), TokenDecryptError, 'truncated')
  t.throws(() => cipher.decrypt(`${version}.${keyId}.${iv}`, 'grant:1'), TokenDecryptError, 'a part missing')
  t.throws(() => cipher.decrypt(`v2.${keyId}.${iv}.${body}`, 'grant:1'), TokenDecryptError, 'unknown version')
  t.throws(() => cipher.decrypt('', 'grant:1'), TokenDecryptError, 'empty')
})

t.test('the AAD binds a ciphertext to its record', async (t) => {
  const cipher = createTokenCipher(parseTokenKeys(oldKey))
  const sealed = cipher.encrypt('tokens of grant 1', 'grant:1')
  t.throws(() => cipher.decrypt(sealed, 'grant:2'), TokenDecryptError, 'moved to another record')
  t.throws(() => cipher.decrypt(sealed), TokenDecryptError, 'read without the AAD')
  t.throws(() => cipher.decrypt(cipher.encrypt('x'), 'grant:1'), TokenDecryptError, 'sealed without, read with')
})

t.test('parseTokenKeys accepts the usual base64 forms', async (t) => {
  const bytes = Buffer.alloc(32, 0xfb)
  const keys = parseTokenKeys(` a:${bytes.toString('base64')} , b_2-x:${bytes.toString('base64url')},c:${bytes.toString('base64').replace(/=+$/, '')}`)
  t.same(keys.map((key) => key.id), ['a', 'b_2-x', 'c'], 'padded, URL-safe, unpadded; spaces around entries ignored')
  t.notMatch(inspect(keys), bytes.toString('base64'), 'printing the keys does not show them')
  t.notMatch(JSON.stringify(keys), bytes.toString('base64'))
})

t.test('bad specs are refused with a reason and without key material', async (t) => {
  const secret = Buffer.alloc(32, 7).toString('base64')
  const shortKey = Buffer.alloc(16, 7).toString('base64')
  const cases: Array<[string, RegExp]> = [
    ['', /no token keys/],
    [' , ', /no token keys/],
    [`a:${secret},`, /token key 2 is empty/],
    [secret, /token key 1 has no ":"/],
    [`:${secret}`, /token key 1: the id must be 1 to 32 characters/],
    [`bad id:${secret}`, /token key 1: the id must be/],
    [`${'x'.repeat(33)}:${secret}`, /the id must be 1 to 32/],
    [`a:${secret},a:${secret}`, /token key 2: the id "a" is used twice/],
    [`a:${shortKey}`, /token key 1 \(id "a"\): the key must decode to exactly 32 bytes, got 16/],
    [`a:${secret}xyz!`, /token key 1 \(id "a"\): the key is not valid base64/],
    [`a:${Buffer.alloc(64, 7).toString('base64')}`, /got 64/]
  ]
  for (const [spec, message] of cases) {
    try {
      parseTokenKeys(spec)
      t.fail(`accepted ${JSON.stringify(spec)}`)
    } catch (error) {
      const text = (error as Error).message
      t.match(text, message)
      t.notMatch(text, secret.slice(0, 12), 'no key material in the message')
      t.notMatch(text, shortKey.slice(0, 12))
    }
  }
})

t.test('createTokenCipher checks what it is given', async (t) => {
  t.throws(() => createTokenCipher([]), /at least one key/)
  const [key] = parseTokenKeys(oldKey)
  if (key === undefined) throw new Error('no key')
  t.throws(() => createTokenCipher([key, key]), /used twice/)
})

t.test('generateTokenKey makes keys parseTokenKeys accepts', async (t) => {
  const generated = generateTokenKey()
  t.match(generated, /^k\d{8}:[A-Za-z0-9+/]{43}=$/)
  t.equal(parseTokenKeys(generated).length, 1)
  t.not(generateTokenKey('x'), generateTokenKey('x'), 'random every time')
  t.throws(() => generateTokenKey('no spaces'), /the id must be/)
})
