// Unit tests of src/grants/token-refresher.ts over the in-memory store, with the token endpoint
// injected: what happens when the lease changes hands, when another instance writes first, and
// when the token endpoint refuses the grant or media-bff's own client.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { createGrantStore, type Grant } from '../../src/grants/grant-store.js'
import { createTokenRefresher, type TokenRefresherOptions } from '../../src/grants/token-refresher.js'
import { GrantEndedError, RefreshUnavailableError } from '../../src/grants/grant-errors.js'
import type { TokenSet } from '../../src/oauth/authorization-server.js'
import { classifyTokenError } from '../../src/oauth/token-errors.js'
import { TokenEndpointError } from '../../src/oauth/token-failure.js'
import * as oidc from 'openid-client'
import type { KeyValueStore } from '../../src/store/key-value-store.js'
import { testTokenKey } from '../helpers/secrets.js'

const HOUR = 3_600_000

function setup (refresh: TokenRefresherOptions['refresh'], options: { store?: (inner: KeyValueStore) => KeyValueStore, grantTtlMs?: number } = {}) {
  const inner = createMemoryStore()
  const store = options.store?.(inner) ?? inner
  const grants = createGrantStore(store, createTokenCipher(parseTokenKeys(testTokenKey())), { ttlMs: options.grantTtlMs ?? HOUR })
  const outcomes: string[] = []
  const clientRejections: string[] = []
  const refresher = createTokenRefresher({
    grants,
    store,
    refresh,
    skewMs: 60_000,
    lockLeaseMs: 5000,
    onRefresh: (outcome) => { outcomes.push(outcome) },
    onClientRejected: (error) => { clientRejections.push(error) }
  })
  return { inner, store, grants, refresher, outcomes, clientRejections, close: async () => { await inner.close() } }
}

/** A grant whose access token has expired, so the next call must refresh. */
const expiredGrant = { tenant: 'default', userId: 'u1', accessToken: 'old-access', refreshToken: 'old-refresh', expiresAt: Date.now() - 1000, scopes: ['basic'] }
const tokens = (accessToken: string): TokenSet => ({ accessToken, refreshToken: `${accessToken}-refresh`, expiresAt: Date.now() + HOUR, grantedScopes: undefined, userId: undefined })

t.test('a lease lost before redeeming: no redemption of our own, the winner\'s tokens are used', async (t) => {
  let refreshes = 0
  const held: { grant?: Grant } = {}
  let stolen = false
  const stack = setup(async () => { refreshes++; return tokens('ours') }, {
    // Another instance takes the lock over between our read and our redemption (as after a
    // stall longer than the lease), refreshes, writes and releases.
    store: (inner) => ({
      ...inner,
      expireIfEquals: async (key, expected, ttlMs) => {
        if (!stolen && key.startsWith('lock:grant:') && held.grant !== undefined) {
          stolen = true
          await inner.set(key, 'another-instance', ttlMs)
          const current = await stack.grants.read(held.grant.id)
          if (current !== undefined) await stack.grants.replace(current, { accessToken: 'winner', expiresAt: Date.now() + HOUR, refreshedAt: Date.now() })
          await inner.delete(key)
        }
        return await inner.expireIfEquals(key, expected, ttlMs)
      }
    })
  })
  t.teardown(stack.close)
  const grant = held.grant = await stack.grants.create(expiredGrant)
  const result = await stack.refresher.accessToken(grant.id)
  t.equal(result.grant.accessToken, 'winner', 'the winner\'s token')
  t.equal(refreshes, 0, 'our refresh token was never redeemed')
  t.ok(stolen, 'the lease really changed hands')
})

t.test('a failed compare-and-set never deletes what another instance wrote', async (t) => {
  const held: { grant?: Grant } = {}
  const stack = setup(async () => {
    // While the service answers us, another instance writes newer tokens (its own refresh).
    const current = await stack.grants.read(held.grant!.id)
    await stack.grants.replace(current!, { accessToken: 'winner', expiresAt: Date.now() + HOUR, refreshedAt: Date.now() })
    return tokens('ours')
  })
  t.teardown(stack.close)
  const grant = held.grant = await stack.grants.create(expiredGrant)
  const result = await stack.refresher.accessToken(grant.id)
  t.equal(result.grant.accessToken, 'winner')
  t.equal((await stack.grants.read(grant.id))?.grant.accessToken, 'winner', 'the newer grant is still stored')
  t.same(stack.outcomes, ['reused'])
})

t.test('invalid_grant after another instance wrote newer tokens: the newer grant is kept and used', async (t) => {
  const held: { grant?: Grant } = {}
  const stack = setup(async () => {
    const current = await stack.grants.read(held.grant!.id)
    await stack.grants.replace(current!, { accessToken: 'winner', expiresAt: Date.now() + HOUR })
    throw tokenError(400, 'invalid_grant')
  })
  t.teardown(stack.close)
  const grant = held.grant = await stack.grants.create(expiredGrant)
  t.equal((await stack.refresher.accessToken(grant.id)).grant.accessToken, 'winner')
  t.ok(await stack.grants.read(grant.id))
})

t.test('invalid_grant after the lease was lost: queue behind the new holder, never end its grant', async (t) => {
  const held: { grant?: Grant } = {}
  let attempts = 0
  const stack = setup(async () => {
    attempts++
    // We stalled past the lease; another instance took the lock and is still redeeming (it has
    // not written yet), so the service refuses our copy of the same refresh token.
    const lockKey = `lock:grant:${held.grant!.id}`
    await stack.inner.set(lockKey, 'another-instance', 5000)
    setTimeout(() => {
      (async () => {
        const current = await stack.grants.read(held.grant!.id)
        await stack.grants.replace(current!, { accessToken: 'winner', expiresAt: Date.now() + HOUR, refreshedAt: Date.now() })
        await stack.inner.delete(lockKey)
      })().catch(() => {})
    }, 50)
    throw tokenError(400, 'invalid_grant')
  })
  t.teardown(stack.close)
  const grant = held.grant = await stack.grants.create(expiredGrant)
  const result = await stack.refresher.accessToken(grant.id)
  t.equal(result.grant.accessToken, 'winner', 'the new holder\'s tokens')
  t.equal(attempts, 1, 'no second redemption')
  t.ok(await stack.grants.read(grant.id), 'the grant lives on')
})

t.test('invalid_grant on the record as read ends the grant', async (t) => {
  const stack = setup(async () => { throw tokenError(400, 'invalid_grant') })
  t.teardown(stack.close)
  const grant = await stack.grants.create(expiredGrant)
  await t.rejects(stack.refresher.accessToken(grant.id), GrantEndedError)
  t.equal(await stack.grants.read(grant.id), undefined)
  t.same(stack.outcomes, ['rejected'])
})

for (const [status, error] of [[401, 'invalid_client'], [400, 'unauthorized_client'], [400, 'invalid_client'], [401, 'invalid_grant']] as const) {
  t.test(`a client-level refusal (${status} ${error}) keeps the grant, answers "try later" and is reported once`, async (t) => {
    let calls = 0
    const stack = setup(async () => {
      calls++
      await sleep(20)
      throw tokenError(status, error)
    })
    t.teardown(stack.close)
    const grant = await stack.grants.create(expiredGrant)
    const results = await Promise.allSettled(Array.from({ length: 20 }, async () => await stack.refresher.accessToken(grant.id)))
    for (const result of results) {
      t.ok(result.status === 'rejected' && result.reason instanceof RefreshUnavailableError, 'every caller is told to retry')
    }
    t.equal(calls, 1, 'one refresh for the whole stampede')
    t.same(stack.clientRejections, [error], 'reported once')
    t.same(stack.outcomes, ['client_rejected'])
    t.ok(await stack.grants.read(grant.id), 'the grant is kept')
  })
}

t.test('a refresh never extends a grant beyond its deadline (the session\'s absolute timeout)', async (t) => {
  const stack = setup(async () => tokens('new'), { grantTtlMs: 1000 })
  t.teardown(stack.close)
  const grant = await stack.grants.create(expiredGrant)
  // Refresh late in the grant's life: a TTL restarted by this write would outlive the deadline.
  await sleep(600)
  const refreshed = await stack.refresher.accessToken(grant.id)
  t.equal(refreshed.grant.accessToken, 'new')
  t.equal(refreshed.grant.notAfter, grant.notAfter, 'the deadline is the one set at sign-in')
  await sleep(Math.max(0, grant.notAfter - Date.now()) + 50)
  t.equal(await stack.grants.read(grant.id), undefined, 'gone at the deadline, refresh or not')
  t.equal(await stack.inner.get(`grant:${grant.id}`), undefined, 'and gone from the store, not just unreadable')
})

/** What the injected refresh throws: the token endpoint's answer, classified as in production. */
function tokenError (status: number, error: string): TokenEndpointError {
  const response = new Response(JSON.stringify({ error }), { status, headers: { 'content-type': 'application/json' } })
  return new TokenEndpointError(classifyTokenError(new oidc.ResponseBodyError('token endpoint refused', { cause: { error }, response })))
}
