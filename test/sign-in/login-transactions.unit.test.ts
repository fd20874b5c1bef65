// src/sign-in/login-transactions.ts and login-state.ts without HTTP: sealed transactions carried by
// the browser, nothing stored until a code was accepted, single use, and the per-browser bound
// (fixed slots of bounded size) over any sequence of sign-ins, sequential or racing.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { createLoginTransactions, LoginTooLargeError, MAX_COOKIE_BYTES, MAX_SLOTS, SLOT_BYTES, type LoginTransaction } from '../../src/sign-in/login-transactions.js'
import { MAX_LENGTH as MAX_RETURN_TO_LENGTH } from '../../src/sign-in/return-to.js'
import { createLoginStateSigner } from '../../src/sign-in/login-state.js'
import { TEST_SESSION_SECRET, testTokenKey } from '../helpers/secrets.js'

const TTL_MS = 60_000
const PREFIX = '__Host-media-bff-login-'
const cipher = createTokenCipher(parseTokenKeys(testTokenKey()))
const states = createLoginStateSigner([TEST_SESSION_SECRET])
const request = (returnTo = '/', scopes = ['basic']): Omit<LoginTransaction, 'createdAt'> => ({
  tenant: 'default', codeVerifier: 'v'.repeat(43), returnTo, scopes, addedScopes: scopes.slice(1)
})

function setUp (t: Test, maxPerBrowser = MAX_SLOTS) {
  const store = createMemoryStore()
  t.teardown(() => store.close())
  const transactions = createLoginTransactions({ cipher, store, states, cookiePrefix: PREFIX, ttlMs: TTL_MS, maxPerBrowser, defaultTenant: 'default' })
  /** One browser's cookie jar, applying what each start sets and clears. */
  const jar: Record<string, string> = {}
  const startIn = (returnTo = '/', now = Date.now(), scopes?: string[]) => {
    const started = transactions.start(request(returnTo, scopes), { ...jar }, now)
    for (const name of started.dropped) delete jar[name]
    jar[started.cookie.name] = started.cookie.value
    return started
  }
  return { store, transactions, jar, startIn }
}

t.test('starting a sign-in writes nothing to the store; the browser carries the sealed transaction', async (t) => {
  const { store, transactions, jar, startIn } = setUp(t)
  const { state, cookie } = startIn('/back')
  t.equal(store.size, 0, 'nothing stored')
  t.ok(cookie.name.startsWith(PREFIX))
  t.notMatch(cookie.value, /verifier|vvvv|\/back/, 'sealed: neither the verifier nor the return path is readable')
  const opened = await transactions.open(state, jar)
  t.equal(opened.kind, 'open')
  if (opened.kind !== 'open') return
  t.equal(opened.transaction.returnTo, '/back')
  t.equal(opened.transaction.codeVerifier, 'v'.repeat(43))
  t.equal(opened.cookieName, cookie.name)
  t.equal(store.size, 0, 'opening only reads')
})

t.test('single use: claimed once after the code was accepted, refused afterwards', async (t) => {
  const { store, transactions, jar, startIn } = setUp(t)
  const { state } = startIn()
  const opened = await transactions.open(state, jar)
  if (opened.kind !== 'open') throw new Error('not open')
  const claims = await Promise.all([transactions.claim(state, opened.transaction), transactions.claim(state, opened.transaction)])
  t.same(claims.sort(), [false, true], 'of two racing callbacks exactly one wins')
  t.equal(store.size, 1, 'one marker')
  t.same(await transactions.open(state, jar), { kind: 'invalid', cookieName: opened.cookieName }, 'replayed with its cookie: refused, and the cookie goes')
  t.same(await transactions.open(state, {}), { kind: 'invalid' }, 'replayed elsewhere: refused as used, not as another browser')
})

t.test('what a callback can bring that is refused', async (t) => {
  const { transactions, jar, startIn } = setUp(t)
  const now = Date.now()
  const { state, cookie } = startIn('/', now)
  const other = startIn('/', now - 1000)
  t.same(await transactions.open(state, {}), { kind: 'other_browser' }, 'a fresh state of ours without its cookie: another browser')
  t.same(await transactions.open(state, { [other.cookie.name]: other.cookie.value }), { kind: 'other_browser' }, '... also when that browser has an older sign-in of its own')
  t.same(await transactions.open('forged-state-value-0123456789', jar), { kind: 'invalid' }, 'a state media-bff never issued')
  const foreignSigner = createLoginStateSigner(['another-secret-0123456789-abcdefghijklmn'])
  t.same(await transactions.open(foreignSigner.issue(Date.now()), jar), { kind: 'invalid' }, 'a state signed with another secret')
  t.same(await transactions.open(state, jar, Date.now() + TTL_MS + 1), { kind: 'invalid', cookieName: cookie.name }, 'expired, even with its cookie')
  const swapped = { [cookie.name]: jar[other.cookie.name] ?? '' }
  t.same(await transactions.open(state, swapped), { kind: 'other_browser' }, "another sign-in's transaction in this state's slot does not open")
  // A character well inside the ciphertext (the last one of base64url may carry only spare bits).
  const at = cookie.value.length - 10
  const tampered = { [cookie.name]: `${cookie.value.slice(0, at)}${cookie.value[at] === 'A' ? 'B' : 'A'}${cookie.value.slice(at + 1)}` }
  t.not((await transactions.open(state, tampered)).kind, 'open', 'a tampered transaction does not open')
})

t.test('every altered character of a state makes it one media-bff never issued', async (t) => {
  const state = states.issue(Date.now())
  t.ok(states.issuedAt(state) !== undefined)
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'
  let checked = 0
  for (let i = 0; i < state.length; i++) {
    for (const char of alphabet) {
      if (char === state[i]) continue
      const altered = `${state.slice(0, i)}${char}${state.slice(i + 1)}`
      if (states.issuedAt(altered) !== undefined) t.fail(`accepted ${altered}`)
      checked++
    }
  }
  t.comment(`${checked} altered states refused`)
  const rotated = createLoginStateSigner(['new-secret-0123456789-abcdefghijklmnopq', TEST_SESSION_SECRET])
  t.ok(rotated.issuedAt(state) !== undefined, 'a state signed with an older secret still verifies after rotation')
})

t.test('a browser keeps at most maxPerBrowser sign-ins: the oldest lose their slots, and are told so', async (t) => {
  const { transactions, jar, startIn } = setUp(t, 3)
  const started = [1, 2, 3, 4, 5].map((i) => startIn(`/tab${i}`, Date.now() + i))
  t.same(Object.keys(jar).sort(), [`${PREFIX}0`, `${PREFIX}1`, `${PREFIX}2`], 'three fixed slots')
  for (const [index, { state }] of started.entries()) {
    const kind = (await transactions.open(state, jar)).kind
    t.equal(kind, index < 2 ? 'superseded' : 'open', `tab ${index + 1}`)
  }
})

t.test('free slots first (empty, spent or expired), the oldest when none is; other cookies are left alone', async (t) => {
  const { transactions } = setUp(t, 3)
  const now = Date.now()
  const cookies = {
    [`${PREFIX}0`]: `${(now - 10).toString(36)}.v1.x.y.z`,
    [`${PREFIX}1`]: `${(now - 20).toString(36)}.`,
    [`${PREFIX}2`]: `${(now - 30).toString(36)}.v1.x.y.z`,
    '__Host-media-bff': 'the session'
  }
  t.equal(transactions.start(request(), cookies, now).cookie.name, `${PREFIX}1`, 'a spent slot is free')
  t.equal(transactions.start(request(), { ...cookies, [`${PREFIX}1`]: `${(now - 5).toString(36)}.v1.x.y.z` }, now).cookie.name, `${PREFIX}2`, 'all in use: the oldest')
  t.equal(transactions.start(request(), { ...cookies, [`${PREFIX}1`]: `${(now - 5).toString(36)}.v1.x.y.z`, [`${PREFIX}0`]: `${(now - TTL_MS - 1).toString(36)}.v1.x.y.z` }, now).cookie.name, `${PREFIX}0`, 'an expired one is free')
  const legacy = { [`${PREFIX}AAAAAAAAAAAAAAAA`]: 'a sign-in from before slots', [`${PREFIX}too-short`]: 'not one of ours' }
  t.same(transactions.start(request(), legacy, now).dropped, [`${PREFIX}AAAAAAAAAAAAAAAA`], 'cookies of the format before slots are cleared')
})

t.test('a spent slot still tells a sign-in it took the place of that it was superseded', async (t) => {
  const { transactions, jar, startIn } = setUp(t, 1)
  const older = startIn('/older', Date.now() - 5)
  const newer = startIn('/newer')
  const opened = await transactions.open(newer.state, jar)
  if (opened.kind !== 'open') throw new Error('not open')
  const spent = transactions.spentValue(opened.cookieName, opened.transaction)
  t.ok(spent !== undefined && spent.length < 16, 'a spent slot holds only when its sign-in began')
  jar[opened.cookieName] = spent ?? ''
  t.same(await transactions.open(older.state, jar), { kind: 'superseded' })
  t.not((await transactions.open(newer.state, jar)).kind, 'open', 'the spent one itself no longer opens')
})

t.test('tabs racing each other: each sees the same cookies, and the browser still holds at most its slots', async (t) => {
  const { transactions } = setUp(t, 3)
  const jar: Record<string, string> = {}
  const seen = { ...jar }
  const now = Date.now()
  const started = Array.from({ length: 16 }, () => transactions.start(request(`/${'p'.repeat(MAX_RETURN_TO_LENGTH - 1)}`, ['basic', 'user.info', 'manage', 'upload', 'share']), seen, now))
  // Their answers arrive in any order; the browser keeps the last cookie set under each name.
  for (const { cookie } of started) jar[cookie.name] = cookie.value
  const bytes = Object.entries(jar).reduce((sum, [name, value]) => sum + name.length + value.length + 1, 0)
  t.ok(Object.keys(jar).length <= 3 && bytes <= MAX_COOKIE_BYTES, `${Object.keys(jar).length} login cookies, ${bytes} bytes`)
  const kinds = await Promise.all(started.map(async ({ state }) => (await transactions.open(state, jar)).kind))
  t.equal(kinds.filter((kind) => kind === 'open').length, Object.keys(jar).length, 'one sign-in completes per slot held')
  t.same([...new Set(kinds)].sort(), ['open', 'superseded'], 'and every other one is told it was superseded')
})

t.test('property: any sequence of sign-ins keeps the login cookies within both caps, and the newest open', async (t) => {
  await fc.assert(fc.asyncProperty(
    fc.integer({ min: 1, max: MAX_SLOTS }),
    fc.array(fc.integer({ min: 1, max: MAX_RETURN_TO_LENGTH }), { minLength: 1, maxLength: 25 }),
    async (maxPerBrowser, returnToLengths) => {
      const store = createMemoryStore()
      try {
        const transactions = createLoginTransactions({ cipher, store, states, cookiePrefix: PREFIX, ttlMs: TTL_MS, maxPerBrowser })
        const jar: Record<string, string> = {}
        let last = ''
        const now = Date.now()
        for (const [i, length] of returnToLengths.entries()) {
          const started = transactions.start(request(`/${'a'.repeat(length - 1)}`), { ...jar }, now + i)
          for (const name of started.dropped) delete jar[name]
          jar[started.cookie.name] = started.cookie.value
          last = started.state
        }
        const names = Object.keys(jar)
        const bytes = names.reduce((sum, name) => sum + name.length + (jar[name]?.length ?? 0) + 1, 0)
        return names.length <= maxPerBrowser && bytes <= MAX_COOKIE_BYTES && (await transactions.open(last, jar)).kind === 'open' && store.size === 0
      } finally {
        await store.close()
      }
    }
  ), { numRuns: 200 })
  t.pass('200 generated sequences of sign-ins')
})

t.test('the largest transaction fits its slot, whatever the tenant and key id; anything larger is refused', async (t) => {
  const longKeyCipher = createTokenCipher(parseTokenKeys(testTokenKey('k'.repeat(32))))
  const store = createMemoryStore()
  t.teardown(() => store.close())
  const transactions = createLoginTransactions({ cipher: longKeyCipher, store, states, cookiePrefix: `__Host-${'n'.repeat(64)}-login-`, ttlMs: TTL_MS, maxPerBrowser: MAX_SLOTS, defaultTenant: 'default' })
  const largest = { tenant: 't'.repeat(63), codeVerifier: 'v'.repeat(43), returnTo: `https://www.example.org:8443/${'a'.repeat(MAX_RETURN_TO_LENGTH - 30)}`, scopes: ['basic', 'user.info', 'upload', 'manage', 'share'], addedScopes: ['upload', 'manage', 'share'] }
  const { cookie } = transactions.start(largest, {})
  const bytes = cookie.name.length + cookie.value.length + 1
  t.comment(`largest login cookie: ${bytes} bytes of ${SLOT_BYTES}`)
  t.ok(bytes <= SLOT_BYTES)
  t.throws(() => transactions.start({ ...largest, returnTo: `/${'a'.repeat(2000)}` }, {}), LoginTooLargeError)
})

t.test('rejects a nonsensical cap', async (t) => {
  const store = createMemoryStore()
  t.teardown(() => store.close())
  t.throws(() => createLoginTransactions({ cipher, store, states, cookiePrefix: PREFIX, ttlMs: TTL_MS, maxPerBrowser: 0 }), RangeError)
  t.throws(() => createLoginTransactions({ cipher, store, states, cookiePrefix: PREFIX, ttlMs: TTL_MS, maxPerBrowser: MAX_SLOTS + 1 }), RangeError)
})
