// The session core in memory (one replica's store shared by two cores), and what it does when the
// store refuses the writes of its check (Redis at maxmemory).
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createSessionEpochs } from '../../src/sessions/session-epochs.js'
import { createSessionCore } from '../../src/sessions/session-core.js'
import { sessionCoreBehaviour, fullForWrites } from './session-core-behaviour.js'

t.test('in memory', async (t) => {
  sessionCoreBehaviour(t, () => createMemoryStore())
})

t.test('a store that refuses the check\'s writes: the session is still read, uncounted and not kept', async (t) => {
  const store = createMemoryStore()
  t.teardown(() => store.close())
  const record = { grantId: 'g', tenant: 'default', user: { id: 'u' }, handle: 'h', authenticatedAt: Date.now() }
  let reads = 0
  const core = createSessionCore({
    epochs: createSessionEpochs(fullForWrites(store), { lifetimeMs: 60_000 }),
    readSession: async () => { reads++; return record },
    readGrant: async () => undefined
  })
  const sid = randomUUID()
  const opened = await core.open(sid, { limit: 'api', windowMs: 60_000 })
  t.same(opened, { record, grant: undefined, counted: undefined })
  t.equal(core.size, 0)
  t.equal(reads, 2, 'read once to find whose it is, once more after the refusal')
})

t.test('a store that cannot be reached fails the open', async (t) => {
  const core = createSessionCore({
    epochs: createSessionEpochs(createMemoryStore(), { lifetimeMs: 60_000 }),
    readSession: async () => { throw new Error('down') },
    readGrant: async () => undefined
  })
  await t.rejects(core.open(randomUUID()), /down/)
})
