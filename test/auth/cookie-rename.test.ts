// The session cookie was __Host-media-bff before 0.2.0 and is __Host-Http-media-bff since (RFC
// 10017's prefix: only a server sets it). During a rolling upgrade from 0.1.0
// (ROLLING_UPGRADE_FROM_0_1, the time it ends by) a browser holding 0.1.0's name for a session
// 0.1.0 made stays signed in under that name (never promoted to today's, which only a server
// sets), and whenever this version sets or clears the session cookie it does so under the old
// name as well, Lax as 0.1.0 set it
// (plugins/previous-cookie-name.ts). But a page's script can set the old name, so it never wins
// over today's, never signs a browser into a session a later version made, and means nothing
// once the time given has passed. Sessions of 0.1.0 and 0.2.0 are the stored-record fixtures,
// loaded into a real Redis.
import { readFile } from 'node:fs/promises'
import t, { type Test } from 'tap'
import { Redis } from 'ioredis'
import { build, type Built } from '../helpers/build.js'
import { startRedis } from '../helpers/redis.js'
import { parseSetCookie, type Browser } from '../helpers/http-client.js'
import { FIXTURE_ENV } from '../fixtures/stored-records.js'
import { problemsOf, validEnv } from '../helpers/config-env.js'
import { loadConfig } from '../../src/config/config.js'

const OLD = '__Host-media-bff'
const NEW = '__Host-Http-media-bff'
const HOUR = 3_600_000

interface Fixture { cookie: string, keys: Record<string, { type: 'string', value: string } | { type: 'hash', value: Record<string, string> } | { type: 'zset', value: string[] }> }
const fixture = async (version: string): Promise<Fixture> => JSON.parse(await readFile(new URL(`../fixtures/stored-records-${version}.json`, import.meta.url), 'utf8')) as Fixture
/** The signed session id the fixture's browser held, whatever the cookie's name. */
const valueOf = (cookie: string): string => cookie.slice(cookie.indexOf('=') + 1)

const redis = await startRedis()
t.teardown(redis.destroy)
const raw = new Redis(redis.url)
t.teardown(() => { raw.disconnect() })
const [made010, made020] = [await fixture('0.1.0'), await fixture('0.2.0')]

let now = Date.now()
/** media-bff on a Redis that holds the sessions 0.1.0 and 0.2.0 made, as they made them. */
const stackUntil = async (t: Test, until: number | 'off'): Promise<Built> => {
  await raw.flushall()
  for (const { keys } of [made010, made020]) {
    for (const [key, entry] of Object.entries(keys)) {
      if (entry.type === 'string') await raw.set(key, entry.value)
      else if (entry.type === 'hash') await raw.hset(key, entry.value)
      else await raw.zadd(key, ...entry.value)
    }
  }
  return await built(t, until)
}
const built = async (t: Test, until: number | 'off'): Promise<Built> => await build(t, {
  env: { ...FIXTURE_ENV, REDIS_URL: redis.url, PUBLIC_URL: 'https://bff.example', TRUST_PROXY: '127.0.0.1', ROLLING_UPGRADE_FROM_0_1: until === 'off' ? 'off' : new Date(until).toISOString() },
  clock: () => now
})
const over = (built: Built, cookies: Record<string, string>): Browser => {
  const browser = built.browser({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bff.example' })
  for (const [name, value] of Object.entries(cookies)) browser.cookies.set(name, value)
  return browser
}
const setBy = (setCookies: string[], name: string): ReturnType<typeof parseSetCookie> | undefined => setCookies.map(parseSetCookie).find((cookie) => cookie.name === name)

t.test('a session 0.1.0 made, under its name: signed in, never sent under today\'s name', async (t) => {
  const stack = await stackUntil(t, now + HOUR)
  const value = valueOf(made010.cookie)
  const browser = over(stack, { [OLD]: value })
  const answer = await browser.get('/auth/session')
  t.match(answer.json(), { authenticated: true, user: { name: 'Alice Example' } }, 'still signed in')
  // A page's script can set the old name: promoting it to today's, which only a server sets,
  // would let a script plant a session 0.1.0 made (after signing the person out) for good.
  t.equal(setBy(answer.setCookies, NEW), undefined, 'not promoted to the server\'s own name')
  t.equal(browser.cookies.get(NEW), undefined)
  now += 10 * 60_000
  const touched = await browser.post('/auth/session/keepalive')
  t.equal(touched.json().authenticated, true, 'kept alive under the old name')
  t.equal(setBy(touched.setCookies, NEW), undefined, 'a touch saves it, and still sends no cookie under today\'s name')
  t.match(setBy(touched.setCookies, OLD), { value, attributes: { secure: true, httponly: true, path: '/', samesite: 'Lax' } }, 'but under the old one, Lax as 0.1.0 set it, for 0.1.0 replicas')
  t.equal((await browser.get('/auth/session')).json().authenticated, true, 'and from then on under the old name')
  const logout = await browser.post('/auth/logout')
  t.same([setBy(logout.setCookies, NEW)?.value, setBy(logout.setCookies, OLD)?.value], ['', ''], 'signing out clears both')
})

t.test('the old name never signs a browser into a session a later version made', async (t) => {
  const stack = await stackUntil(t, now + HOUR)
  const planted = over(stack, { [OLD]: valueOf(made020.cookie) })
  const answer = await planted.get('/auth/session')
  t.equal(answer.json().authenticated, false, 'a session of 0.2.0 under the old name signs nobody in')
  t.notOk(setBy(answer.setCookies, NEW)?.value, 'and is not promoted to the server\'s own name')
  const current = over(stack, { [OLD]: valueOf(await stack.signIn('bob')) })
  t.equal((await current.get('/auth/session')).json().authenticated, false, 'nor does one this version made')
})

t.test('the old name never wins over a session today\'s holds', async (t) => {
  const stack = await stackUntil(t, now + HOUR)
  const bobs = valueOf(await stack.signIn('bob'))
  const browser = over(stack, { [NEW]: bobs, [OLD]: valueOf(made010.cookie) })
  t.match((await browser.get('/auth/session')).json(), { authenticated: true, user: { name: 'Bob Example' } }, 'today\'s name decides, even beside a session 0.1.0 made')
  // A sign-in a 0.1.0 replica completed: it replaced the session both names held, and wrote its
  // own under the old name alone.
  await browser.post('/auth/logout')
  const after = over(stack, { [NEW]: bobs, [OLD]: valueOf(made010.cookie) })
  t.match((await after.get('/auth/session')).json(), { authenticated: true, user: { name: 'Alice Example' } }, 'when today\'s names no session, a session 0.1.0 made under the old name is read')
})

t.test('the mode ends by itself at the time it was given', async (t) => {
  const until = now + HOUR
  const stack = await stackUntil(t, until)
  t.teardown(() => { now = Date.now() })
  now = until - 1
  t.equal((await over(stack, { [OLD]: valueOf(made010.cookie) }).get('/auth/session')).json().authenticated, true, 'a moment before it, 0.1.0\'s name is read')
  now = until + 1
  const browser = over(stack, { [OLD]: valueOf(made010.cookie) })
  const answer = await browser.get('/auth/session')
  t.equal(answer.json().authenticated, false, 'after it, it is not')
  const bob = over(stack, { [NEW]: valueOf(await stack.signIn('bob')) })
  const logout = await bob.post('/auth/logout')
  t.ok(setBy(logout.setCookies, NEW), 'today\'s cookie is cleared')
  t.notOk(setBy(logout.setCookies, OLD), 'and the old name is no longer written')
})

t.test('ROLLING_UPGRADE_FROM_0_1 is the time the upgrade ends by, never a bare switch, and is said at start', async (t) => {
  const at = (ms: number): string => new Date(ms).toISOString()
  t.match(problemsOf({ ...validEnv, ROLLING_UPGRADE_FROM_0_1: 'on' }), [/^ROLLING_UPGRADE_FROM_0_1: must be the time the rolling upgrade from 0.1.0 ends by/], '"on" has no end: refused')
  t.match(problemsOf({ ...validEnv, ROLLING_UPGRADE_FROM_0_1: '2026-12-01' }), [/^ROLLING_UPGRADE_FROM_0_1: must be the time/], 'a date without a time and zone')
  t.match(problemsOf({ ...validEnv, ROLLING_UPGRADE_FROM_0_1: at(Date.now() + 8 * 24 * HOUR) }), [/more than 7 days ahead/])
  const on = loadConfig({ ...validEnv, ROLLING_UPGRADE_FROM_0_1: at(Date.now() + 2 * HOUR) })
  t.match(on.session.rollingUpgrade, { previousCookieName: OLD, until: Number })
  t.match(on.warnings, [/^ROLLING_UPGRADE_FROM_0_1: a rolling upgrade from 0.1.0 runs until .*Remove the variable once no replica runs 0.1.0/], 'a warning at start while it is on')
  const ended = loadConfig({ ...validEnv, ROLLING_UPGRADE_FROM_0_1: at(Date.now() - HOUR) })
  t.equal(ended.session.rollingUpgrade, undefined, 'a time past: off')
  t.match(ended.warnings, [/^ROLLING_UPGRADE_FROM_0_1: ended at .*remove the variable/])
  t.equal(loadConfig({ ...validEnv, ROLLING_UPGRADE_FROM_0_1: 'off' }).session.rollingUpgrade, undefined)
  t.equal(loadConfig(validEnv).session.rollingUpgrade, undefined, 'off by default')
})
