// The per-browser cap of src/oauth/login-transactions.ts where HTTP cannot make it deterministic:
// many sign-ins of one browser racing each other, and a list that never stops changing.
import t from 'tap'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { createLoginTransactions, hashBinding, LoginContentionError, newBrowserBinding, type LoginTransaction } from '../../src/oauth/login-transactions.js'
import { testTokenKey } from '../helpers/bff.js'

const cipher = createTokenCipher(parseTokenKeys(testTokenKey()))
const transactionOf = (binding: string): LoginTransaction => ({
  tenant: 'default',
  codeVerifier: 'v'.repeat(43),
  returnTo: '/',
  scopes: ['basic'],
  addedScopes: [],
  browserBinding: hashBinding(binding),
  createdAt: Date.now()
})

t.test('sign-ins of one browser racing each other never leave more than the cap behind', async (t) => {
  const store = createMemoryStore()
  t.teardown(() => store.close())
  const transactions = createLoginTransactions(store, cipher, { ttlMs: 60_000, maxPerBrowser: 3 })
  const binding = newBrowserBinding()
  const states = Array.from({ length: 40 }, (_, i) => `state-${i}`)
  const outcomes = await Promise.allSettled(states.map(async (state) => { await transactions.save(state, transactionOf(binding)) }))
  const failures = outcomes.filter((outcome) => outcome.status === 'rejected')
  t.ok(failures.every((outcome) => outcome.reason instanceof LoginContentionError), 'a save either succeeds or reports the contention')
  t.ok(outcomes.length - failures.length >= 3, 'at least as many succeed as the cap')
  let open = 0
  for (const state of states) {
    if ((await transactions.consume(state, binding)) !== 'unknown') open++
  }
  t.equal(open, 3, 'exactly the cap is left open')
  t.equal(store.size, 1, 'and nothing else but the browser\'s list')
})

t.test('a list that changes under every attempt: LoginContentionError, and the transaction is taken back', async (t) => {
  const memory = createMemoryStore()
  t.teardown(() => memory.close())
  const store = { ...memory, compareAndSet: async () => false }
  const transactions = createLoginTransactions(store, cipher, { ttlMs: 60_000, maxPerBrowser: 3 })
  const binding = newBrowserBinding()
  await t.rejects(transactions.save('state-1', transactionOf(binding)), LoginContentionError)
  t.equal(memory.size, 0, 'nothing left behind')
  t.equal(await transactions.consume('state-1', binding), 'unknown')
})

t.test('rejects a nonsensical cap', async (t) => {
  const store = createMemoryStore()
  t.teardown(() => store.close())
  t.throws(() => createLoginTransactions(store, cipher, { ttlMs: 60_000, maxPerBrowser: 0 }), RangeError)
})
