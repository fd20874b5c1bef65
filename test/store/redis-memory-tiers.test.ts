// On Redis at maxmemory (noeviction), room is shared out in tiers (src/store/redis-memory.ts):
// bookkeeping stops at 80% (a webhook is refused with 503 and Retry-After, for the service to
// retry), new sign-ins at 90%, and the people already signed in keep the rest: their sessions and
// grants are still written, a token refresh included. A real redis-server with a small maxmemory.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { request } from 'undici'
import { startStack, UNLIMITED_RATES } from '../helpers/bff.js'
import { startRedis } from '../helpers/redis.js'
import { signIn } from '../helpers/sign-in.js'
import { signedWebhook } from '../helpers/webhooks.js'
import { BOOKKEEPING_CEILING, SIGN_IN_CEILING, usedShare } from '../../src/store/redis-memory.js'

const WEBHOOK_KEY = 'webhook-key-0123456789-abcdefghijkl'

const redis = await startRedis({ args: ['--maxmemory', '8mb', '--maxmemory-policy', 'noeviction'] })
t.teardown(redis.destroy)
const raw = new Redis(redis.url)
t.teardown(() => { raw.disconnect() })
const fullness = async (): Promise<number> => usedShare(await raw.info('memory')) ?? 0
/** Fills Redis with keys of nobody's until it is `share` full. */
const fillTo = async (share: number): Promise<void> => {
  for (let i = 0; await fullness() < share; i++) await raw.set(`junk:${randomUUID()}`, 'x'.repeat(8 * 1024))
}

t.test('bookkeeping stops first, then new sign-ins; the people signed in keep working', async (t) => {
  const stack = await startStack({
    emulator: { accessTokenTtl: 2 },
    env: { ...UNLIMITED_RATES, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'tiers:', WEBHOOK_KEYS: WEBHOOK_KEY, RATE_LIMIT_WEBHOOKS_PER_MINUTE: '100000', TOKEN_REFRESH_SKEW: '1' }
  })
  t.teardown(stack.close)
  const alice = stack.bff.browser()
  t.equal((await signIn(alice)).callback.status, 302)
  const refreshes = (): number => stack.emulator.counters().tokenGrants.refresh_token

  await fillTo(BOOKKEEPING_CEILING - 0.03)
  let refusal
  for (let i = 0; i < 20_000 && refusal === undefined; i++) {
    const answer = await request(`${stack.bff.url}/webhooks/media`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: signedWebhook(WEBHOOK_KEY) })
    const body = await answer.body.json() as { error?: string }
    if (answer.statusCode !== 202) refusal = { status: answer.statusCode, body, retryAfter: answer.headers['retry-after'] }
  }
  t.comment(`webhooks refused at ${(await fullness()).toFixed(3)} of maxmemory`)
  t.match(refusal, { status: 503, body: { error: 'unavailable' }, retryAfter: /^\d+$/ }, 'a webhook is refused for the service to retry')
  t.ok(await fullness() < SIGN_IN_CEILING, 'below the sign-in ceiling')
  const newcomer = stack.bff.browser()
  t.equal((await signIn(newcomer, { user: 'bob' })).callback.status, 302, 'a new sign-in still gets in above the bookkeeping ceiling')

  await fillTo(SIGN_IN_CEILING + 0.01)
  // The readings are a second old at most.
  await sleep(1200)
  const late = stack.bff.browser()
  const login = await late.get('/auth/login')
  t.equal(login.status, 503, 'above the sign-in ceiling a new sign-in is refused')
  t.equal(login.json().error, 'unavailable')

  const before = refreshes()
  await sleep(2500)
  t.equal((await alice.get('/api/user/info')).status, 200, 'alice\'s expired token is refreshed and her call goes through')
  t.ok(refreshes() > before, 'her grant was rewritten with the new tokens')
  t.equal((await alice.post('/auth/session/keepalive')).json().authenticated, true, 'her session is written too')
  t.equal((await newcomer.get('/auth/session')).json().authenticated, true)
  t.ok(await fullness() < 1, 'and Redis never had to refuse them')
  const metrics = await (await request(`${stack.bff.url}/metrics`)).body.text()
  const shown = Number(/^media_bff_redis_memory_fullness (\S+)$/m.exec(metrics)?.[1])
  t.ok(shown > SIGN_IN_CEILING && shown < 1, `how full Redis is, as a metric (${shown})`)
})
