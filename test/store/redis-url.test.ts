import t from 'tap'
import { parseRedisUrl } from '../../src/store/redis-url.js'

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
