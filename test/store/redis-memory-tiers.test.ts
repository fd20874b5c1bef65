// On Redis at maxmemory (noeviction), room is shared out in tiers (src/store/redis-memory.ts), one
// per family: webhooks stop at 70% (refused with 503 and Retry-After, for the service to retry),
// upload registrations and finishes at 80%, new sign-ins at 90%, and the people already signed in
// keep the rest: their sessions and grants are still written, a token refresh included. Each
// bookkeeping write checks its ceiling in the write itself, so a burst cannot run past it on a
// figure read before the burst began. A real redis-server with a small maxmemory.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { request } from 'undici'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import { startRedis } from '../helpers/redis.js'
import { signIn } from '../helpers/sign-in.js'
import { signedWebhook } from '../helpers/webhooks.js'
import { uploadDirect } from '../helpers/direct-upload.js'
import { CEILINGS, SIGN_IN_READING_MS, usedShare } from '../../src/store/redis-memory.js'
import { createRedisStore } from '../../src/store/redis-store.js'
import { StoreFullError } from '../../src/store/key-value-store.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'
/** What one write may add beyond a ceiling it was let under: a webhook's id and queue entry. */
const ONE_WRITE = 0.005

const redis = await startRedis({ args: ['--maxmemory', '8mb', '--maxmemory-policy', 'noeviction'] })
t.teardown(redis.destroy)
const raw = new Redis(redis.url)
t.teardown(() => { raw.disconnect() })
const fullness = async (): Promise<number> => usedShare(await raw.info('memory')) ?? 0
/** Fills Redis with keys of nobody's until it is `share` full. */
const fillTo = async (share: number): Promise<void> => {
  for (let i = 0; await fullness() < share; i++) await raw.set(`junk:${randomUUID()}`, 'x'.repeat(8 * 1024))
}
/** Lets go of keys of nobody's until it is below `share`. */
const drainTo = async (share: number): Promise<void> => {
  for (const key of await raw.keys('junk:*')) {
    if (await fullness() < share) return
    await raw.del(key)
  }
}

t.test('a family held back at its ceiling refuses what takes room, checked by the node in the write; reads and deletes go through', async (t) => {
  await raw.flushall()
  const store = createRedisStore({ url: redis.url, keyPrefix: 'held:' })
  t.teardown(store.close)
  const webhooks = store.heldBackAbove(CEILINGS.webhooks, 'webhooks')
  const uploads = store.heldBackAbove(CEILINGS.uploads, 'upload registrations')
  await webhooks.set('a', '1', 60_000)
  await webhooks.mapSet('m', 'f', 'v', 60_000)
  await fillTo(CEILINGS.webhooks)
  for (const [name, write] of [
    ['set', async () => { await webhooks.set('b', '2', 60_000) }],
    ['setIfAbsent', async () => { await webhooks.setIfAbsent('b', '2', 60_000) }],
    ['compareAndSet', async () => { await webhooks.compareAndSet('a', '1', '2', 60_000) }],
    ['compareAndSet of an absent key', async () => { await webhooks.compareAndSet('c', undefined, '2', 60_000) }],
    ['mapSet', async () => { await webhooks.mapSet('m', 'g', 'w', 60_000) }]
  ] as const) {
    const at = (await fullness()).toFixed(3)
    await t.rejects(write, StoreFullError, `${name} refused at ${at}`)
  }
  t.equal(await webhooks.compareAndSet('a', 'other', '2', 60_000), false, 'a compare that fails is not a write: it answers as ever')
  t.equal(await webhooks.get('a'), '1', 'reads go through')
  await webhooks.delete('a')
  t.equal(await webhooks.get('a'), undefined, 'deletes too')
  await uploads.set('u', '1', 60_000)
  t.equal(await uploads.get('u'), '1', 'a family with a higher ceiling still writes')
  await store.set('p', '1', 60_000)
  t.equal(await store.get('p'), '1', 'and so do people\'s records, never held back')
})

t.test('a burst of webhooks stops at their ceiling: registrations, finishes and sign-ins go on; then each tier in turn', async (t) => {
  await raw.flushall()
  const stack = await startStack({
    emulator: { accessTokenTtl: 2 },
    env: { ...UNLIMITED_RATES, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'tiers:', WEBHOOK_KEYS: WEBHOOK_KEY, RATE_LIMIT_WEBHOOKS_PER_MINUTE: '1000000', TOKEN_REFRESH_SKEW: '1', OAUTH_SCOPES: 'basic user.info upload' }
  })
  t.teardown(stack.close)
  const alice = stack.bff.browser()
  t.equal((await signIn(alice)).callback.status, 302)
  const refreshes = (): number => stack.emulator.counters().tokenGrants.refresh_token

  // A burst: 40 senders at once, until each has been refused (the service retries those).
  await fillTo(CEILINGS.webhooks - 0.05)
  let highest = 0
  const answers = new Map<number, number>()
  const sampling = new AbortController()
  const sampler = (async () => { while (!sampling.signal.aborted) { highest = Math.max(highest, await fullness()); await sleep(5) } })()
  await Promise.all(Array.from({ length: 40 }, async () => {
    for (let sent = 0; sent < 2_000; sent++) {
      const answer = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: signedWebhook(WEBHOOK_KEY) })
      await answer.body.dump()
      answers.set(answer.statusCode, (answers.get(answer.statusCode) ?? 0) + 1)
      if (answer.statusCode === 503) return
    }
  }))
  sampling.abort()
  await sampler
  highest = Math.max(highest, await fullness())
  t.comment(`burst: ${JSON.stringify(Object.fromEntries(answers))}; Redis at most ${highest.toFixed(3)} full`)
  t.ok((answers.get(202) ?? 0) > 0 && answers.get(503) === 40, 'taken until the ceiling, then refused with 503 for the service to retry')
  t.ok(highest < CEILINGS.webhooks + ONE_WRITE, `the burst never ran past the webhooks' ceiling (${highest.toFixed(3)} < ${CEILINGS.webhooks})`)

  const record = await alice.post('/uploads/register', { folder_id: 0, options: { autofinish: false } })
  t.equal(record.status, 200, 'an upload registration still goes through')
  t.equal((await uploadDirect(record.json().url_upload_direct, 'clip.mp4', 'a clip')).status, 200)
  const finished = await alice.post(record.json().finish_url)
  t.equal(finished.status, 200, 'and its finish')
  const newcomer = stack.bff.browser()
  t.equal((await signIn(newcomer, { user: 'bob' })).callback.status, 302, 'and a new sign-in')

  await fillTo(CEILINGS.uploads)
  const late = await alice.post('/uploads/register', { folder_id: 0 })
  t.match({ status: late.status, error: late.json().error, retryAfter: late.headers['retry-after'] }, { status: 503, error: 'unavailable', retryAfter: /^\d+$/ }, 'at theirs, registrations are refused for a while')
  const third = stack.bff.browser()
  t.equal((await signIn(third, { user: 'alice' })).callback.status, 302, 'sign-ins are not')

  await fillTo(CEILINGS.signIns + 0.01)
  // A sign-in is judged by a reading at most SIGN_IN_READING_MS old: one taken since the fill.
  await sleep(SIGN_IN_READING_MS + 50)
  const refused = await stack.bff.browser().navigate('/auth/login')
  t.equal(refused.status, 503, `above the sign-in ceiling, read within ${SIGN_IN_READING_MS} ms of that sign-in, a new one is refused`)
  t.equal(refused.json().error, 'unavailable')

  const before = refreshes()
  await sleep(2500)
  t.equal((await alice.get('/api/user/info')).status, 200, 'alice\'s expired token is refreshed and her call goes through')
  t.ok(refreshes() > before, 'her grant was rewritten with the new tokens')
  t.equal((await alice.post('/auth/session/keepalive')).json().authenticated, true, 'her session is written too')
  t.equal((await newcomer.get('/auth/session')).json().authenticated, true)
  t.ok(await fullness() < 1, 'and Redis never had to refuse them')
  const metrics = await (await request(`${stack.bff.url}/metrics`)).body.text()
  const shown = Number(/^media_bff_redis_memory_fullness (\S+)$/m.exec(metrics)?.[1])
  t.ok(shown > CEILINGS.signIns && shown < 1, `how full Redis is, as a metric (${shown})`)

  await drainTo(CEILINGS.webhooks - 0.05)
  t.equal((await alice.post('/uploads/register', { folder_id: 0 })).status, 200, 'once there is room again, everything goes on')
})
