// A rolling upgrade runs two versions of media-bff on one Redis: what the previous release
// stored must be read by this one, or every person is signed out as the new replicas come up.
// Each test/fixtures/stored-records-<version>.json holds what that release wrote for one signed-in
// person (test/fixtures/make-stored-records.ts); each is loaded into a fresh Redis as it was and
// read with the current code: the session is signed in, as the same person, with its grant, and
// listed in that person's sessions.
import { readdir, readFile } from 'node:fs/promises'
import t from 'tap'
import { Redis } from 'ioredis'
import { build } from '../helpers/build.js'
import { startRedis } from '../helpers/redis.js'
import { FIXTURE_ENV } from '../fixtures/stored-records.js'

interface Fixture {
  writtenBy: string
  cookie: string
  keys: Record<string, { type: 'string', value: string } | { type: 'hash', value: Record<string, string> } | { type: 'zset', value: string[] }>
}

const fixturesDir = new URL('../fixtures/', import.meta.url)
const files = (await readdir(fixturesDir)).filter((name) => /^stored-records-.+\.json$/.test(name)).sort()
const redis = await startRedis()
t.teardown(redis.destroy)

t.ok(files.length > 0, 'at least the previous release\'s records')
for (const file of files) {
  t.test(file, async (t) => {
    const fixture = JSON.parse(await readFile(new URL(file, fixturesDir), 'utf8')) as Fixture
    const raw = new Redis(redis.url)
    t.teardown(() => { raw.disconnect() })
    await raw.flushall()
    for (const [key, entry] of Object.entries(fixture.keys)) {
      if (entry.type === 'string') await raw.set(key, entry.value)
      else if (entry.type === 'hash') await raw.hset(key, entry.value)
      else await raw.zadd(key, ...entry.value)
    }
    const built = await build(t, { env: { ...FIXTURE_ENV, REDIS_URL: redis.url } })
    const headers = { cookie: fixture.cookie }
    const session = await built.inject({ method: 'GET', url: '/auth/session', headers })
    t.equal(session.statusCode, 200)
    t.match(session.json(), { authenticated: true, user: { name: 'Alice Example' } }, `a session ${fixture.writtenBy} wrote is signed in`)
    const listed = await built.inject({ method: 'GET', url: '/auth/sessions', headers })
    t.equal(listed.statusCode, 200)
    t.match(listed.json(), { sessions: [{ current: true }] }, 'and in its person\'s index')
    t.equal(listed.json().sessions.length, 1)
  })
}
