// Sign-in floods and rate limits with Redis: the per-browser cap, rate-limit counters shared by
// every replica, a Redis at maxmemory (noeviction) refusing new sign-ins while signed-in sessions
// keep working, and a Redis outage that never turns the limiter into an error of its own.
import { Redis } from 'ioredis'
import t from 'tap'
import { startBff, startStack } from '../helpers/bff.js'
import { startRedis } from '../helpers/redis.js'
import { signIn } from '../helpers/sign-in.js'
import { perBrowserCapSuite } from './login-flood.suite.js'

// noeviction is Redis's default; said here because it is what the test is about.
const redis = await startRedis({ args: ['--maxmemory-policy', 'noeviction'] })
t.teardown(redis.destroy)
const admin = new Redis(redis.url)
t.teardown(() => { admin.disconnect() })
let prefix = 0
const redisEnv = (): { REDIS_URL: string, REDIS_KEY_PREFIX: string } => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `flood${++prefix}:` })

perBrowserCapSuite(t, redisEnv)

t.test('two replicas count sign-ins from one address together, in Redis under the key prefix', async (t) => {
  const env = { ...redisEnv(), RATE_LIMIT_LOGIN_PER_MINUTE: '3' }
  const stack = await startStack({ env })
  t.teardown(stack.close)
  const other = await startBff(stack.emulator, env)
  t.teardown(other.close)
  const [a, b] = [stack.bff.browser(), other.browser()]
  t.same([(await a.get('/auth/login')).status, (await a.get('/auth/login')).status, (await b.get('/auth/login')).status], [302, 302, 302])
  const limited = await b.get('/auth/login')
  t.equal(limited.status, 429, 'the other replica saw the first two')
  t.equal(limited.json().error, 'rate_limited')
  t.ok(Number(limited.headers['retry-after']) >= 1)
  t.equal((await a.get('/auth/login')).status, 429)
  const counters = await admin.keys(`${env.REDIS_KEY_PREFIX}rate:*`)
  t.equal(counters.length, 1, 'one counter, under REDIS_KEY_PREFIX')
})

t.test('Redis at maxmemory: new sign-ins get 503 with Retry-After, signed-in sessions keep working', async (t) => {
  const stack = await startStack({ env: redisEnv() })
  t.teardown(stack.close)
  const signedIn = stack.bff.browser()
  await signIn(signedIn)

  // Any write that needs memory is now refused with "OOM command not allowed".
  await admin.config('SET', 'maxmemory', '1')
  t.teardown(async () => { await admin.config('SET', 'maxmemory', '0') })
  const refused = await stack.bff.browser().get('/auth/login')
  t.equal(refused.status, 503)
  t.same(refused.json(), { error: 'unavailable', message: 'Too many sign-ins are in progress right now. Try again shortly.' })
  t.equal(refused.headers['retry-after'], '30')
  const session = await signedIn.get('/auth/session')
  t.equal(session.status, 200)
  t.equal(session.json().authenticated, true, 'the signed-in session is read as before')
  t.notOk(stack.bff.logs.some((line) => line.includes('unexpected error')), 'no unexpected error was logged')

  await admin.config('SET', 'maxmemory', '0')
  t.equal((await stack.bff.browser().get('/auth/login')).status, 302, 'room again: sign-ins work')
})

t.test('Redis down: the limiter lets the request through and the route reports the outage (503)', async (t) => {
  const stack = await startStack({ env: { ...redisEnv(), RATE_LIMIT_LOGIN_PER_MINUTE: '1' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  t.equal((await browser.get('/auth/login')).status, 302)
  await redis.stop()
  t.teardown(redis.start)
  const answer = await browser.get('/auth/login')
  t.equal(answer.status, 503, 'unavailable, not rate_limited: the counter could not be read')
  t.equal(answer.json().error, 'unavailable')
  t.ok(answer.headers['retry-after'])
  t.notOk(stack.bff.logs.some((line) => line.includes('unexpected error')), 'the limiter raised no error of its own')
})
