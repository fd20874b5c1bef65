// Unit tests of src/uploads/registrations.ts: finishing only ever uses a finish URL this sign-in
// was given, on the tenant it was given on, before it expired.
import t from 'tap'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createRegistrations } from '../../src/uploads/registrations.js'

const ULID = '01JD3Z6Q4T8V2X7B9C5N1M0K2P'

t.test('found by its owner, on its tenant, until it expires', async (t) => {
  const store = createMemoryStore()
  t.teardown(async () => { await store.close() })
  const registrations = createRegistrations(store)
  const remembered = { ulid: ULID, finishUrl: `https://north.example/api/upload/id/${ULID}`, tenant: 'north', expiresAt: Date.now() + 60_000 }
  await registrations.remember('owner-1', remembered)
  t.same(await registrations.find('owner-1', ULID, 'north'), remembered)
  t.equal(await registrations.find('owner-1', ULID, 'south'), undefined, 'never for a grant of another tenant')
  t.equal(await registrations.find('owner-2', ULID, 'north'), undefined, 'never for another sign-in')
  t.equal(await registrations.find('owner-1', ULID.toLowerCase(), 'north'), undefined, 'only a ULID')
  t.equal(await registrations.find('owner-1', '../../x', 'north'), undefined)
  await registrations.remember('owner-1', { ...remembered, ulid: '01JD3Z6Q4T8V2X7B9C5N1M0K2Q', expiresAt: Date.now() - 1 })
  t.equal(await registrations.find('owner-1', '01JD3Z6Q4T8V2X7B9C5N1M0K2Q', 'north'), undefined, 'not once expired')
})
