// Sessions and grants live in Redis, so replicas can restart and keys can rotate without anyone
// signing in again. Checked on the raw Redis values: which key sealed each grant record.
import { setTimeout as sleep } from 'node:timers/promises'
import { createHmac } from 'node:crypto'
import t from 'tap'
import { Redis } from 'ioredis'
import { Browser } from '../helpers/http-client.js'
import { signIn } from '../helpers/sign-in.js'
import { createTokenCipher, parseTokenKeys } from '../../src/store/token-cipher.js'
import { newSessionSecret, newTokenKey, startProductionStack } from './stack.js'

const COOKIE = '__Host-Http-media-bff'
// Short-lived access tokens: the first call 2 s after a sign-in refreshes, which rewrites the grant.
const ACCESS_TOKEN_TTL_S = 4

const stack = await startProductionStack(t, { emulator: { accessTokenTtl: ACCESS_TOKEN_TTL_S } })
const redis = new Redis(stack.redis.url, { lazyConnect: true })
await redis.connect()
t.teardown(async () => { await redis.quit() })

const sessionCookie = (browser: Browser): { id: string, signature: string, raw: string } => {
  const raw = browser.cookies.get(COOKIE)
  if (raw === undefined) throw new Error('the browser holds no session cookie')
  const value = decodeURIComponent(raw)
  const dot = value.lastIndexOf('.')
  return { id: value.slice(0, dot), signature: value.slice(dot + 1), raw }
}
// @fastify/cookie's signature: HMAC-SHA256 of the session id, base64 without padding.
const signedWith = (browser: Browser, secret: string): boolean => {
  const { id, signature } = sessionCookie(browser)
  return createHmac('sha256', secret).update(id).digest('base64').replace(/=/g, '') === signature
}
/** The raw session and grant records of a browser's sign-in, as Redis holds them. */
const stored = async (browser: Browser, tokenKeys: string): Promise<{ session: string, grant: string }> => {
  const key = `sess:${sessionCookie(browser).id}`
  const session = await redis.get(`${stack.keyPrefix}${key}`)
  if (session === null) throw new Error('no session record in Redis')
  // Session records are sealed too (the session id is the AAD); the grant id is inside.
  const { grantId } = JSON.parse(createTokenCipher(parseTokenKeys(tokenKeys)).decrypt(session, key)) as { grantId?: string }
  const grant = grantId === undefined ? null : await redis.get(`${stack.keyPrefix}grant:${grantId}`)
  if (grant === null) throw new Error('no grant record in Redis')
  return { session, grant }
}
const authenticated = async (browser: Browser): Promise<boolean> => (await browser.get('/auth/session')).json().authenticated
const register = async (browser: Browser): Promise<number> => (await browser.post('/uploads/register', { folder_id: 0 })).status
const restartAll = async (changes: Record<string, string> = {}): Promise<void> => {
  await Promise.all(stack.replicas.map(async (replica) => { await replica.restart(changes) }))
}
const tokenDue = async (since: number): Promise<void> => {
  const wait = since + (ACCESS_TOKEN_TTL_S / 2) * 1000 + 300 - Date.now()
  if (wait > 0) await sleep(wait)
}

t.test('both replicas restarted: the same cookie still works', async (t) => {
  const browser = stack.browser()
  await signIn(browser)
  const cookie = sessionCookie(browser).raw
  t.equal(await authenticated(browser), true)

  await restartAll()
  t.ok(stack.replicas.every((replica) => replica.logs().some((line) => line.run === 2)), 'every replica is a new process')
  t.equal(await authenticated(browser), true, 'the session outlived the processes')
  t.equal(await register(browser), 200, 'and so did the tokens')
  t.equal(sessionCookie(browser).raw, cookie, 'with the very same cookie')
})

t.test('rotating SESSION_SECRETS and TOKEN_KEYS keeps everyone signed in; new writes use the new key', async (t) => {
  const oldSecret = stack.env.SESSION_SECRETS as string
  const oldKey = stack.env.TOKEN_KEYS as string
  const newSecret = newSessionSecret()
  const newKey = newTokenKey('k2')
  const bothKeys = `${newKey},${oldKey}`

  const before = stack.browser()
  await signIn(before)
  const signedInAt = Date.now()
  const oldCookie = sessionCookie(before).raw
  t.ok(signedWith(before, oldSecret), 'cookie signed with the old secret')
  t.match(await stored(before, oldKey), { session: /^v1\.k1\./, grant: /^v1\.k1\./ }, 'session and grant sealed with k1')

  // Prepend the new ones, keep the old ones: the first signs and encrypts, all verify and decrypt.
  await restartAll({ SESSION_SECRETS: `${newSecret},${oldSecret}`, TOKEN_KEYS: bothKeys })
  t.match(await stored(before, bothKeys), { session: /^v1\.k1\./, grant: /^v1\.k1\./ }, 'a restart rewrites nothing')
  // A page's asset is often the first thing a browser asks for: it opens no session.
  const asset = await before.get('/client/media-bff-client.js')
  t.equal(asset.status, 200)
  t.same(asset.setCookies, [], 'an asset asked for first neither clears the cookie nor renews it')
  t.equal(sessionCookie(before).raw, oldCookie, 'the browser keeps its cookie')
  t.equal(await authenticated(before), true, 'a cookie signed with the old secret, a session sealed with k1: still signed in')
  t.ok(signedWith(before, newSecret), 'the browser got its cookie back re-signed with the new secret')
  t.match(await stored(before, bothKeys), { session: /^v1\.k2\./, grant: /^v1\.k1\./ }, 'and the session record re-sealed with k2')

  await tokenDue(signedInAt)
  t.equal(await register(before), 200, 'tokens sealed with k1 still open')
  t.match(await stored(before, bothKeys), { grant: /^v1\.k2\./ }, 'the refresh re-sealed the old grant with k2')

  const after = stack.browser()
  await signIn(after)
  t.ok(signedWith(after, newSecret), 'a new cookie is signed with the new secret')
  t.notOk(signedWith(after, oldSecret))
  t.match(await stored(after, bothKeys), { session: /^v1\.k2\./, grant: /^v1\.k2\./ }, 'new session and grant sealed with k2')
  t.equal(await register(after), 200)
  t.equal(await authenticated(before), true, 'the rotated browser keeps working next to new ones')

  // Once nothing signed or sealed with the old secret and key is left, they can go. A cookie
  // still signed with the old secret (a browser not seen since the rotation) is then refused:
  // the reason to keep the old ones until sessions made before the rotation have expired.
  await restartAll({ SESSION_SECRETS: newSecret, TOKEN_KEYS: newKey })
  t.equal(await authenticated(after), true, 'sessions made after the rotation are untouched')
  t.equal(await register(after), 200)
  t.equal(await authenticated(before), true, 'so are those re-signed and re-sealed since')
  const unseen = new Browser(stack.publicUrl, { cookie: `${COOKIE}=${oldCookie}` })
  t.equal(await authenticated(unseen), false, 'a cookie signed only with the removed secret no longer authenticates')
})
