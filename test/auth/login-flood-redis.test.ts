// Sign-in floods with Redis: the per-browser cap, a flood from over ten thousand addresses
// against a Redis capped at maxmemory (noeviction) that leaves no room for anything the flood
// might write, the per-address limiter kept out of Redis, and a Redis outage that never turns
// the limiter into an error of its own.
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import t from 'tap'
import { startBff, startStack } from '../helpers/bff.js'
import { startRedis } from '../helpers/redis.js'
import { signIn } from '../helpers/sign-in.js'
import { perBrowserCapSuite } from './login-flood.suite.js'
import { signInFloodSuite } from './sign-in-flood.suite.js'
import { SIGN_IN_READING_MS } from '../../src/store/redis-memory.js'

// A flood of 13,200 requests from 12,000 addresses (past the 10,000 counters an instance keeps per
// address): some 100 s of work on a shared 2-core machine, too near the suite's 120 s per file
// (package.json) once other work runs beside it. This file's budget is its own.
t.setTimeout(300_000)

// noeviction is Redis's default; said here because it is what the tests are about.
// fsync once a second, as production's Redis does (docker/kubernetes/components/redis/redis.conf),
// not the helper's fsync of every write: a minute of flood is no test of the disk.
const redis = await startRedis({ args: ['--maxmemory-policy', 'noeviction', '--appendfsync', 'everysec'] })
t.teardown(redis.destroy)
const admin = new Redis(redis.url)
t.teardown(() => { admin.disconnect() })
let prefix = 0
const redisEnv = (): { REDIS_URL: string, REDIS_KEY_PREFIX: string } => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `flood${++prefix}:` })
const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1])

perBrowserCapSuite(t, redisEnv)

const floodEnv = redisEnv()
/** Room left above what Redis holds once everyone is signed in: far less than a flood would need. */
const HEADROOM_BYTES = 1_048_576
let memoryBefore = 0
signInFloodSuite(t, async () => ({
  env: floodEnv,
  keyCount: async () => (await admin.keys(`${floodEnv.REDIS_KEY_PREFIX}*`)).length,
  capStore: async () => {
    memoryBefore = await usedMemory()
    await admin.config('SET', 'maxmemory', String(memoryBefore + HEADROOM_BYTES))
    t.teardown(async () => { await admin.config('SET', 'maxmemory', '0') })
  },
  describeStore: async () => `Redis capped at ${memoryBefore + HEADROOM_BYTES} bytes (noeviction), used_memory ${memoryBefore} before the flood and ${await usedMemory()} after`
}), floodEnv)

t.test('the per-address limit is kept in each instance: nothing an anonymous client sends is written to Redis', async (t) => {
  const env = { ...redisEnv(), RATE_LIMIT_LOGIN_PER_MINUTE: '3' }
  const stack = await startStack({ env })
  t.teardown(stack.close)
  const other = await startBff(stack.emulator, env)
  t.teardown(other.close)
  const [a, b] = [stack.bff.browser(), other.browser()]
  t.same([(await a.get('/auth/login')).status, (await a.get('/auth/login')).status, (await a.get('/auth/login')).status], [302, 302, 302])
  const limited = await a.get('/auth/login')
  t.equal(limited.status, 429, 'the fourth from one address, on one instance')
  t.equal(limited.json().error, 'rate_limited')
  t.ok(Number(limited.headers['retry-after']) >= 1)
  t.equal((await b.get('/auth/login')).status, 302, 'the other instance counts its own')
  t.same(await admin.keys(`${env.REDIS_KEY_PREFIX}*`), [], 'Redis holds nothing: no transaction, no counter')
})

t.test('Redis at maxmemory: new sign-ins are refused, signed-in sessions keep working', async (t) => {
  const stack = await startStack({ env: redisEnv() })
  t.teardown(stack.close)
  const signedIn = stack.bff.browser()
  await signIn(signedIn)

  // Any write that needs memory is now refused with "OOM command not allowed".
  await admin.config('SET', 'maxmemory', '1')
  t.teardown(async () => { await admin.config('SET', 'maxmemory', '0') })
  // A sign-in is judged by a reading at most SIGN_IN_READING_MS old: one taken since.
  await sleep(SIGN_IN_READING_MS + 50)
  const refused = await stack.bff.browser().navigate('/auth/login')
  t.match({ status: refused.status, error: refused.json().error }, { status: 503, error: 'unavailable' }, `above the sign-in tier a new sign-in is refused at once (src/store/redis-memory.ts), read within ${SIGN_IN_READING_MS} ms of it`)
  const session = await signedIn.get('/auth/session')
  t.equal(session.status, 200)
  t.equal(session.json().authenticated, true, 'the signed-in session is read as before')
  t.notOk(stack.bff.logs.some((line) => line.includes('unexpected error')), 'no unexpected error was logged')
})

t.test('Redis down: sign-ins still start and forged callbacks are still refused, without an error of their own', async (t) => {
  const stack = await startStack({ env: redisEnv() })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  t.equal((await browser.get('/auth/login')).status, 302)
  await redis.stop()
  t.teardown(redis.start)
  t.equal((await browser.get('/auth/login')).status, 302, 'starting a sign-in needs no store')
  const callback = await browser.get('/auth/callback?code=x&state=forged-state-value-0123456789')
  t.equal(callback.status, 400, 'a forged state is refused without asking the store')
  t.notOk(stack.bff.logs.some((line) => line.includes('unexpected error')), 'no unexpected error was logged')
})
