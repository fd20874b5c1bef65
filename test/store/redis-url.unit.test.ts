import assert from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { parseRedisUrl, RedisUrlError } from '../../src/store/redis-url.js'

t.test('single-server URLs are left to ioredis', async (t) => {
  t.same(parseRedisUrl('redis://localhost:6379'), { mode: 'single', url: 'redis://localhost:6379' })
  t.same(parseRedisUrl('rediss://:pw@cache.example:6380/2'), { mode: 'single', url: 'rediss://:pw@cache.example:6380/2' })
})

t.test('Sentinel', async (t) => {
  t.same(parseRedisUrl('redis+sentinel://10.0.0.1:26379,10.0.0.2:26380,sentinel-3/mymaster'), {
    mode: 'sentinel',
    sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '10.0.0.2', port: 26380 }, { host: 'sentinel-3', port: 26379 }],
    masterName: 'mymaster',
    tls: false
  }, 'hosts in order, 26379 by default')
  t.same(parseRedisUrl('rediss+sentinel://app:s%40cret@[::1]:26379/media?db=3&sentinelPassword=sp&sentinelUsername=su'), {
    mode: 'sentinel',
    sentinels: [{ host: '::1', port: 26379 }],
    masterName: 'media',
    username: 'app',
    password: 's@cret',
    tls: true,
    db: 3,
    sentinelPassword: 'sp',
    sentinelUsername: 'su'
  }, 'credentials, IPv6, TLS, db and sentinel credentials')
  t.same(parseRedisUrl('redis+sentinel://:only-password@h:1/m'), {
    mode: 'sentinel', sentinels: [{ host: 'h', port: 1 }], masterName: 'm', password: 'only-password', tls: false
  }, 'password without a user')
})

t.test('Cluster', async (t) => {
  t.same(parseRedisUrl('redis+cluster://n1:7000,n2:7001,n3'), {
    mode: 'cluster',
    nodes: [{ host: 'n1', port: 7000 }, { host: 'n2', port: 7001 }, { host: 'n3', port: 6379 }],
    tls: false
  })
  t.same(parseRedisUrl('rediss+cluster://u:p@n1:7000/'), {
    mode: 'cluster', nodes: [{ host: 'n1', port: 7000 }], username: 'u', password: 'p', tls: true
  })
})

t.test('mistakes are named, and the password is never repeated', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['http://h:1', /must start with redis:\/\//],
    ['redis+sentinel://:hunter2@h:1', /must end with \/<master name>/],
    ['redis+sentinel://:hunter2@h:1/a/b', /must end with \/<master name>/],
    ['redis+sentinel://:hunter2@h:1,:2/m', /address 2 of the host list/],
    ['redis+sentinel://:hunter2@h:99999/m', /address 1 of the host list/],
    ['redis+sentinel://:hunter2@h:1/m?db=x', /db must be a non-negative integer/],
    ['redis+sentinel://:hunter2@h:1/m?password=x', /unknown query parameter "password"/],
    ['redis+cluster://:hunter2@h:1/0', /must not have a path/],
    ['redis+cluster://:hunter2@h:1?db=1', /unknown query parameter "db" \(none are supported\)/]
  ]
  for (const [url, message] of cases) {
    try {
      parseRedisUrl(url)
      t.fail(`accepted ${url}`)
    } catch (error) {
      t.match((error as Error).message, message)
      t.notMatch((error as Error).message, 'hunter2')
    }
  }
})

t.test('single-server URLs ioredis could not read are refused at start, not when the client is built', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['redis://', /must name a host/],
    ['redis://:hunter2@h:0', /port must be from 1 to 65535/],
    ['redis://:hunter2@h:6379/cache', /path must be a database number/],
    ['redis://:hunter2%E0@h:6379', /the password is not valid percent-encoding/],
    ['redis://:hunter2@h1:6379,h2:6379', /several hosts need redis\+sentinel:\/\/ or redis\+cluster:\/\//],
    ['rediss://:hunter2@h:6379#x', /must not have a fragment/],
    ['redis://:hunter2@bad host:6379', /not a valid URL/]
  ]
  for (const [url, message] of cases) {
    t.throws(() => parseRedisUrl(url), { name: 'RedisUrlError', message }, url.replace('hunter2', '…'))
    try { parseRedisUrl(url) } catch (error) { t.notMatch((error as Error).message, 'hunter2') }
  }
})

t.test('a malformed percent-escape in a multi-host URL is the parser\'s own error, not a URIError', async (t) => {
  for (const url of ['redis+sentinel://%E0:pw@h:1/m', 'redis+sentinel://u:%@h:1/m', 'redis+sentinel://h:1/%ZZ', 'rediss+cluster://u:%E0%A4@h:1']) {
    t.throws(() => parseRedisUrl(url), RedisUrlError, url)
  }
})

t.test('schemes are case-insensitive, as in any URL', async (t) => {
  t.same(parseRedisUrl('REDISS+Cluster://n1:7000'), { mode: 'cluster', nodes: [{ host: 'n1', port: 7000 }], tls: true })
  t.match(parseRedisUrl('Redis+Sentinel://s1/m'), { mode: 'sentinel', tls: false, masterName: 'm' })
})

// Property-based: fast-check generates the URLs. The seed is fixed so every run checks the same
// cases (a failure is reproducible); change it locally to explore further.
const SEED = 20_240_611
const check = (property: fc.IProperty<any> | fc.IAsyncProperty<any>): void => { fc.assert(property as fc.IProperty<any>, { seed: SEED, numRuns: 400 }) }

const host = fc.oneof(
  fc.domain().map((name) => ({ written: name, parsed: name })),
  fc.ipV4().map((ip) => ({ written: ip, parsed: ip })),
  fc.ipV6().map((ip) => ({ written: `[${ip}]`, parsed: ip }))
)
const address = fc.record({ host, port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }) })
const written = (item: { host: { written: string }, port: number | undefined }): string => `${item.host.written}${item.port === undefined ? '' : `:${item.port}`}`
// Any text, percent-encoded as a URL's user info must be.
const credential = fc.option(fc.string({ unit: 'grapheme', maxLength: 24 }), { nil: undefined })
const userInfo = (username: string | undefined, password: string | undefined): string =>
  username === undefined && password === undefined ? '' : `${encodeURIComponent(username ?? '')}${password === undefined ? '' : `:${encodeURIComponent(password)}`}@`
const expectedCredentials = (username: string | undefined, password: string | undefined): Record<string, string> => ({
  ...(username === undefined || username === '' ? {} : { username }),
  ...(password === undefined || password === '' ? {} : { password })
})
const schemeCase = fc.constantFrom((s: string) => s, (s: string) => s.toUpperCase())

t.test('property: Sentinel host lists, ports, master names, db numbers and credentials round-trip', async () => {
  check(fc.property(
    fc.boolean(), schemeCase, fc.array(address, { minLength: 1, maxLength: 6 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((name) => !name.includes('/')),
    fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined }), credential, credential,
    fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
    (tls, caseOf, addresses, masterName, db, username, password, sentinelPassword, sentinelUsername) => {
      const query = new URLSearchParams()
      if (db !== undefined) query.set('db', String(db))
      if (sentinelPassword !== undefined) query.set('sentinelPassword', sentinelPassword)
      if (sentinelUsername !== undefined) query.set('sentinelUsername', sentinelUsername)
      const search = query.size === 0 ? '' : `?${query.toString()}`
      const url = `${caseOf(tls ? 'rediss+sentinel' : 'redis+sentinel')}://${userInfo(username, password)}${addresses.map(written).join(',')}/${encodeURIComponent(masterName)}${search}`
      assert.deepStrictEqual(parseRedisUrl(url), {
        mode: 'sentinel',
        sentinels: addresses.map((item) => ({ host: item.host.parsed, port: item.port ?? 26379 })),
        masterName,
        tls,
        ...expectedCredentials(username, password),
        ...(db === undefined ? {} : { db }),
        ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
        ...(sentinelUsername === undefined ? {} : { sentinelUsername })
      })
    }
  ))
})

t.test('property: Cluster node lists, ports and credentials round-trip', async () => {
  check(fc.property(
    fc.boolean(), schemeCase, fc.array(address, { minLength: 1, maxLength: 8 }), fc.boolean(), credential, credential,
    (tls, caseOf, addresses, slash, username, password) => {
      const url = `${caseOf(tls ? 'rediss+cluster' : 'redis+cluster')}://${userInfo(username, password)}${addresses.map(written).join(',')}${slash ? '/' : ''}`
      assert.deepStrictEqual(parseRedisUrl(url), {
        mode: 'cluster',
        nodes: addresses.map((item) => ({ host: item.host.parsed, port: item.port ?? 6379 })),
        tls,
        ...expectedCredentials(username, password)
      })
    }
  ))
})

t.test('property: single-server URLs with any host, port, db and credentials are accepted as written', async () => {
  check(fc.property(
    fc.constantFrom('redis', 'rediss', 'REDIS', 'Rediss'), address, fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined }), credential, credential,
    (scheme, item, db, username, password) => {
      const url = `${scheme}://${userInfo(username, password)}${written(item)}${db === undefined ? '' : `/${db}`}`
      assert.deepStrictEqual(parseRedisUrl(url), { mode: 'single', url })
    }
  ))
})

const SUPPORTED = /^(rediss?|rediss?\+sentinel|rediss?\+cluster):\/\//i

t.test('property: any string without a supported scheme is refused with the parser\'s own error', async () => {
  check(fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.webUrl()), (url) => {
    fc.pre(!SUPPORTED.test(url))
    assert.throws(() => parseRedisUrl(url), (error) => error instanceof RedisUrlError && /must start with redis:\/\//.test(error.message))
  }))
})

t.test('property: whatever follows a supported scheme, the parser returns or throws its own error, never repeating the password', async () => {
  const scheme = fc.constantFrom('redis', 'rediss', 'redis+sentinel', 'rediss+sentinel', 'redis+cluster', 'rediss+cluster')
  const tail = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.stringMatching(/^[a-z0-9:%@,/?#=&[\]. -]*$/))
  check(fc.property(scheme, fc.stringMatching(/^[A-Za-z0-9]{20}$/), tail, tail, (name, password, before, after) => {
    const url = `${name}://${before}:${password}@${after}`
    try {
      parseRedisUrl(url)
    } catch (error) {
      assert.ok(error instanceof RedisUrlError, `${String(error)} is not a RedisUrlError`)
      assert.ok(!error.message.includes(password), 'the message repeats the password')
    }
  }))
})

t.test('an unencoded @ or ? in a password is refused without repeating any of it', async (t) => {
  for (const url of ['redis+cluster://u:p@ss@h:1', 'redis+sentinel://u:hunter@2@h:1/m', 'redis+cluster://h:1?:hunter2@h']) {
    t.throws(() => parseRedisUrl(url), { name: 'RedisUrlError', message: /percent-encode/ }, url)
    try { parseRedisUrl(url) } catch (error) { t.notMatch((error as Error).message, /hunter|ss@h/) }
  }
})
