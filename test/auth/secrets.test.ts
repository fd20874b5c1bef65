// No token, code, secret or cookie value in any log line, and none in clear in Redis.
import t from 'tap'
import { Redis } from 'ioredis'
import { startRedis } from '../helpers/redis.js'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { issuedTokens } from '../helpers/issued-tokens.js'

const redis = await startRedis()
t.teardown(redis.destroy)

t.test('a full flow with Redis leaves no secret in the logs or in clear in the store', async (t) => {
  const stack = await startStack({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'secrets:', OAUTH_SCOPES: 'basic user.info upload' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  const { callbackUrl } = await signIn(browser, { loginPath: '/auth/login?return_to=/x' })
  const code = new URL(callbackUrl).searchParams.get('code') ?? ''
  const state = new URL(callbackUrl).searchParams.get('state') ?? ''
  t.ok((await browser.get('/auth/session')).json().authenticated)
  const registered = await browser.post('/uploads/register', { folder_id: 0 })
  t.equal(registered.status, 200)
  await browser.post(`/uploads/${String(registered.json().ulid)}/finish`)
  const cookieValues = [...browser.cookies.values()]
  await browser.post('/auth/logout')

  const tokens = await issuedTokens(stack.emulator.baseUrl)
  t.ok(tokens.access.length > 0 && tokens.refresh.length > 0, 'the emulator issued tokens')
  const secrets = [...tokens.access, ...tokens.refresh, code, state, stack.emulator.clientSecret, ...cookieValues.map((v) => decodeURIComponent(v))]
  const logs = stack.bff.logs.join('')
  t.ok(logs.length > 0, 'logs were captured')
  for (const secret of secrets) {
    t.notOk(logs.includes(secret), `log lines do not contain a secret of length ${secret.length}`)
  }

  // Sign in again and read every raw value in Redis while the grant is alive.
  const again = stack.bff.browser()
  await signIn(again)
  const live = await issuedTokens(stack.emulator.baseUrl)
  const client = new Redis(redis.url)
  t.teardown(() => { client.disconnect() })
  const keys = await client.keys('secrets:*')
  t.ok(keys.some((key) => key.includes('grant:')), 'a grant record is stored')
  t.ok(keys.some((key) => key.includes('sess:')), 'a session record is stored')
  t.ok(keys.some((key) => key.includes('people:')), 'a person\'s session index is stored')
  // Every value, whatever its kind: strings, and the fields of maps (Redis hashes).
  const valueOf = async (key: string): Promise<string> => await client.type(key) === 'hash'
    ? Object.entries(await client.hgetallBuffer(key)).map(([field, value]) => `${field}=${value.toString('latin1')}`).join('\n')
    : (await client.getBuffer(key))?.toString('latin1') ?? ''
  const raw = (await Promise.all(keys.map(valueOf))).join('\n')
  for (const token of [...live.access, ...live.refresh]) {
    t.notOk(raw.includes(token), 'no token in clear in Redis')
  }
})
