// Grant records: opened once per sealed record and shared frozen, never opened under another id.
import t from 'tap'
import { createGrantStore } from '../../src/grants/grant-store.js'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createTokenCipher, generateTokenKey, parseTokenKeys } from '../../src/store/token-cipher.js'

const fields = { tenant: 'default', userId: '7', accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: Date.now() + 3_600_000, scopes: ['basic', 'upload'] }

t.test('a read grant is shared and frozen; a change is a new record', async (t) => {
  const kv = createMemoryStore()
  t.teardown(() => kv.close())
  const grants = createGrantStore(kv, createTokenCipher(parseTokenKeys(generateTokenKey('g1'))), { ttlMs: 60_000 })
  const created = await grants.create(fields)
  const first = await grants.read(created.id)
  const second = await grants.read(created.id)
  t.equal(first?.grant, second?.grant, 'opened once')
  t.ok(Object.isFrozen(first?.grant) && Object.isFrozen(first?.grant.scopes), 'frozen, scopes too')
  t.throws(() => { (first?.grant.scopes as string[]).push('share') }, TypeError)
  const replaced = await grants.replace(first!, { accessToken: 'at-2' })
  t.equal((await grants.read(created.id))?.grant.accessToken, 'at-2')
  t.equal(replaced?.grant.version, 2)
  t.equal(first?.grant.accessToken, 'at-1', 'the grant read before is untouched')
})

t.test('a sealed record copied under another grant id does not open, even once opened', async (t) => {
  const kv = createMemoryStore()
  t.teardown(() => kv.close())
  const grants = createGrantStore(kv, createTokenCipher(parseTokenKeys(generateTokenKey('g1'))), { ttlMs: 60_000 })
  const a = await grants.create(fields)
  const b = await grants.create(fields)
  t.ok(await grants.read(a.id))
  await kv.set(`grant:${b.id}`, await kv.get(`grant:${a.id}`) ?? '', 60_000)
  t.equal(await grants.read(b.id), undefined)
})
