// Stored records and their format (src/store/record-format.ts): this version writes its own, reads
// the one before (none: media-bff 0.1.0) and the one after, and leaves alone what is further away,
// without misreading it or, in a person's index, deleting what another version wrote.
import t from 'tap'
import { formatOf, isReadableFormat, RECORD_FORMAT } from '../../src/store/record-format.js'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createSessionIndex, personIndexKey } from '../../src/sessions/session-index.js'
import { createGrantStore } from '../../src/grants/grant-store.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { signedInOf } from '../../src/sessions/signed-in.js'

t.test('the formats read: none (0.1.0), this one, the next; nothing further', async (t) => {
  t.equal(formatOf({}), 0)
  t.equal(formatOf({ format: '1' }), 0, 'a format is a whole number or absent')
  t.ok(isReadableFormat({}))
  t.ok(isReadableFormat({ format: RECORD_FORMAT }))
  t.ok(isReadableFormat({ format: RECORD_FORMAT + 1 }), 'what the next version writes, during its rollout')
  t.notOk(isReadableFormat({ format: RECORD_FORMAT + 2 }))
})

t.test('a session record: read in the formats read, signed out in any other', async (t) => {
  const record = { grantId: 'g', tenant: 'default', authenticatedAt: 1_000, handle: 'h'.repeat(22) }
  const timeouts = { idleTimeoutMs: 60_000, absoluteTimeoutMs: 120_000 }
  t.ok(signedInOf('sid', record, timeouts), 'a 0.1.0 record')
  t.ok(signedInOf('sid', { ...record, format: RECORD_FORMAT }, timeouts))
  t.equal(signedInOf('sid', { ...record, format: RECORD_FORMAT + 2 }, timeouts), undefined)
})

t.test('a person\'s index: entries written in this format; another version\'s unread entry left in place', async (t) => {
  const kv = createMemoryStore()
  t.teardown(async () => { await kv.close() })
  const index = createSessionIndex(kv, { lifetimeMs: 60_000 })
  const person = { tenant: 'default', userId: '7' }
  const entry = { sid: 's', grantId: 'g', createdAt: 1, device: 'd', network: 'n' }
  await index.add(person, 'a'.repeat(22), entry)
  const key = personIndexKey(person)
  t.equal(JSON.parse((await kv.mapGetAll(key))['a'.repeat(22)] ?? '{}').format, RECORD_FORMAT)
  await kv.mapSet(key, 'b'.repeat(22), JSON.stringify({ ...entry, format: RECORD_FORMAT + 2 }), 60_000, [])
  await kv.mapSet(key, 'c'.repeat(22), 'not json', 60_000, [])
  t.same((await index.entries(person)).map((e) => e.handle), ['a'.repeat(22)], 'only what this version reads')
  t.same(Object.keys(await kv.mapGetAll(key)).sort(), ['a'.repeat(22), 'b'.repeat(22)], 'the unreadable dropped, the other version\'s kept')
})

t.test('a grant: written in this format, unread (as absent) two formats away', async (t) => {
  const kv = createMemoryStore()
  t.teardown(async () => { await kv.close() })
  const cipher = createTokenCipher(parseTokenKeys(`k:${Buffer.alloc(32, 1).toString('base64')}`))
  const grants = createGrantStore(kv, cipher, { ttlMs: 60_000 })
  const grant = await grants.create({ tenant: 'default', userId: '7', accessToken: 'a', refreshToken: 'r', expiresAt: Date.now() + 60_000, scopes: ['basic'] })
  t.equal(grant.format, RECORD_FORMAT)
  t.ok(await grants.read(grant.id))
  await kv.set(`grant:${grant.id}`, cipher.encrypt(JSON.stringify({ ...grant, format: RECORD_FORMAT + 2 }), `grant:${grant.id}`), 60_000)
  t.equal(await grants.read(grant.id), undefined)
})
