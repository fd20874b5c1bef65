import t from 'tap'
import { loadConfig } from '../../src/config/config.js'
import { passwordOf, parseRedisUrl } from '../../src/store/redis-url.js'
import { problemsOf, validEnv as valid } from '../helpers/config-env.js'
import { testAssertionKey } from '../helpers/secrets.js'

t.test('a valid configuration loads with the documented defaults', async (t) => {
  const config = loadConfig(valid)
  t.equal(config.session.cookieName, '__Host-Http-media-bff')
  t.equal(config.session.rollingUpgrade, undefined, 'the name before 0.2.0 means nothing (test/auth/cookie-rename.test.ts: unless a rolling upgrade from 0.1.0 runs)')
  t.equal(config.session.secureCookie, true)
  t.equal(config.oauth.redirectUri, 'https://media.example.org/auth/callback')
  t.same(config.oauth.scopes, ['basic', 'user.info'])
  t.equal(config.oauth.tokenAuthMethod, 'client_secret_post')
  const tenant = config.tenants.get('default')
  t.equal(tenant?.authorizationUrl, 'https://tenant.media.example/api/oauth2/authorize')
  t.equal(tenant?.tokenUrl, 'https://tenant.media.example/api/oauth2/token')
  t.equal(tenant?.issuer, 'https://tenant.media.example')
  t.same(config.allowedOrigins, ['https://media.example.org'])
  t.equal(config.redisUrl, undefined)
})

t.test('several tenants with one client', async (t) => {
  const config = loadConfig({ ...valid, MEDIA_BASE_URL: '', MEDIA_TENANTS: 'north=https://north.media.example, south=https://south.media.example/', MEDIA_DEFAULT_TENANT: 'south' })
  t.same([...config.tenants.keys()], ['north', 'south'])
  t.equal(config.tenants.get('south')?.apiUrl, 'https://south.media.example/api')
  t.equal(config.defaultTenant, 'south')
})

t.test('plain-http PUBLIC_URL (local demo) drops the __Host- prefix and Secure', async (t) => {
  const config = loadConfig({ ...valid, PUBLIC_URL: 'http://localhost:3000' })
  t.equal(config.session.cookieName, 'media-bff')
  t.equal(config.session.secureCookie, false)
})

const cases: Array<[string, Record<string, string>]> = [
  ['PUBLIC_URL', { PUBLIC_URL: '' }],
  ['PUBLIC_URL', { PUBLIC_URL: 'ftp://x' }],
  ['MEDIA_BASE_URL', { MEDIA_BASE_URL: '' }],
  ['MEDIA_BASE_URL', { MEDIA_BASE_URL: 'not a url' }],
  ['MEDIA_TENANTS', { MEDIA_TENANTS: 'a=https://a.example', MEDIA_BASE_URL: 'https://b.example' }],
  ['MEDIA_TENANTS', { MEDIA_BASE_URL: '', MEDIA_TENANTS: 'bad name=https://a.example' }],
  ['MEDIA_DEFAULT_TENANT', { MEDIA_BASE_URL: '', MEDIA_TENANTS: 'a=https://a.example', MEDIA_DEFAULT_TENANT: 'b' }],
  ['OAUTH_CLIENT_ID', { OAUTH_CLIENT_ID: '' }],
  ['OAUTH_CLIENT_SECRET', { OAUTH_CLIENT_SECRET: '' }],
  ['OAUTH_SCOPES', { OAUTH_SCOPES: 'basic every"thing' }],
  ['OAUTH_TOKEN_AUTH_METHOD', { OAUTH_TOKEN_AUTH_METHOD: 'private_key_jwt' }],
  ['OAUTH_REDIRECT_URI', { OAUTH_REDIRECT_URI: 'nope' }],
  ['OAUTH_AUTHORIZATION_URL', { OAUTH_AUTHORIZATION_URL: 'nope' }],
  ['OAUTH_TOKEN_URL', { OAUTH_TOKEN_URL: 'nope' }],
  ['SESSION_SECRETS', { SESSION_SECRETS: '' }],
  ['SESSION_SECRETS', { SESSION_SECRETS: 'short' }],
  ['TOKEN_KEYS', { TOKEN_KEYS: '' }],
  ['TOKEN_KEYS', { TOKEN_KEYS: 'k1:dG9vLXNob3J0' }],
  ['SESSION_IDLE_TIMEOUT', { SESSION_IDLE_TIMEOUT: 'soon' }],
  ['SESSION_IDLE_TIMEOUT', { SESSION_IDLE_TIMEOUT: '2d', SESSION_ABSOLUTE_TIMEOUT: '1d' }],
  ['SESSION_ABSOLUTE_TIMEOUT', { SESSION_ABSOLUTE_TIMEOUT: '-5' }],
  ['EVENTS_HEARTBEAT', { EVENTS_HEARTBEAT: '1s' }],
  ['EVENTS_HEARTBEAT', { EVENTS_HEARTBEAT: '45s' }],
  ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/99' }],
  ['TRUST_PROXY', { TRUST_PROXY: 'proxy.local' }],
  ['ALLOWED_ORIGINS', { ALLOWED_ORIGINS: 'https://site.example/path' }],
  ['REDIS_URL', { REDIS_URL: 'http://redis:6379' }],
  ['UPLOAD_ALLOWED_HOSTS', { UPLOAD_ALLOWED_HOSTS: 'https://upload.example' }],
  ['UPSTREAM_TIMEOUT_MS', { UPSTREAM_TIMEOUT_MS: 'fast' }],
  ['PORT', { PORT: '70000' }],
  ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
  ['DEMO_SITE', { DEMO_SITE: 'maybe' }],
  ['METRICS_TOKEN', { METRICS_TOKEN: 'too-short' }],
  ['METRICS_TOKEN', { METRICS_TOKEN: `${'a'.repeat(32)} ${'b'.repeat(8)}` }],
  ['MEDIA_BASE_URL', { MEDIA_BASE_URL: 'http://tenant.example', NODE_ENV: 'production' }],
  ['MEDIA_BASE_URL', { MEDIA_BASE_URL: 'https://tenant.media.example/api' }],
  ['MEDIA_TENANTS', { MEDIA_BASE_URL: '', MEDIA_TENANTS: 'north=https://north.example/channel/api/' }],
  ['WEBHOOK_KEYS', { MEDIA_BASE_URL: '', MEDIA_TENANTS: 'north=https://north.example', WEBHOOK_KEYS: `north=${'k'.repeat(20)}` }]
]

for (const [variable, change] of cases) {
  t.test(`a bad ${variable} is named (${JSON.stringify(change)})`, async (t) => {
    const problems = problemsOf({ ...valid, ...change })
    t.ok(problems.some((problem) => problem.startsWith(`${variable}:`)), problems.join('; '))
  })
}

t.test('a secret that is still the shell command making it is refused, in any environment', async (t) => {
  // The deployment guide's commands, pasted into a .env (which is not a shell) as they are.
  const pasted = {
    SESSION_SECRETS: '$(node -e "console.log(require(\'crypto\').randomBytes(32).toString(\'base64url\'))")',
    OAUTH_CLIENT_SECRET: '$' + '{CLIENT_SECRET_FROM_VAULT}',
    METRICS_TOKEN: '`openssl rand -hex 32`'
  }
  for (const [variable, value] of Object.entries(pasted)) {
    for (const nodeEnv of ['production', 'development']) {
      const problems = problemsOf({ ...valid, NODE_ENV: nodeEnv, [variable]: value })
      t.ok(problems.some((problem) => problem.startsWith(`${variable}: holds a shell command that was never run`)), `${variable} (${nodeEnv}): ${problems.join('; ')}`)
      t.notOk(problems.join('\n').includes(value), 'the value itself is not echoed')
    }
  }
  t.same(problemsOf({ ...valid, SESSION_SECRETS: 'kR9$x-1Qa'.repeat(4) }), [], 'a dollar sign alone is a character like any other')
})

t.test('a webhook key written tenant=key is refused; tenant:key is read', async (t) => {
  const tenants = { MEDIA_BASE_URL: '', MEDIA_TENANTS: 'north=https://north.example,south=https://south.example' }
  const key = 'k'.repeat(20)
  t.match(problemsOf({ ...valid, ...tenants, WEBHOOK_KEYS: `north=${key}` }), [/^WEBHOOK_KEYS: "north=\.\.\." names a tenant with "="; write north:key$/])
  t.same(loadConfig({ ...valid, ...tenants, WEBHOOK_KEYS: `north:${key},south:${key}=` }).webhooks.keys.get('south'), [`${key}=`], 'a key may end in base64 padding')
  t.same(loadConfig({ ...valid, MEDIA_BASE_URL: 'https://tenant.media.example', WEBHOOK_KEYS: `abc=${key}` }).webhooks.keys.get('default'), [`abc=${key}`], 'with no tenant of that name, = is part of the key')
})

t.test('a webhook key that holds a ":" is never printed, not even its start', async (t) => {
  const secret = 'Zx9QpL2m:rest-of-the-webhook-secret-0123'
  const problems = problemsOf({ ...valid, WEBHOOK_KEYS: secret })
  t.match(problems, [/^WEBHOOK_KEYS: entry 1 names no tenant of the configuration before its first ":" \(tenants: default\); a key that holds a ":" is written with its tenant in front, default:<key>$/])
  for (const part of secret.split(':')) t.notOk(problems.join('\n').includes(part), 'no part of the secret')
  t.same(loadConfig({ ...valid, WEBHOOK_KEYS: `default:${secret}` }).webhooks.keys.get('default'), [secret], 'as the message says to write it, it is read whole')
})

t.test('several tenants on one client: iss is asked of every sign-in, or the operator is told (RFC 9700, mix-up)', async (t) => {
  const tenants = { MEDIA_BASE_URL: '', MEDIA_TENANTS: 'north=https://north.example,south=https://south.example', UPLOAD_ALLOWED_HOSTS: 'upload.example' }
  const warningsOf = (env: Record<string, string>): readonly string[] => loadConfig({ ...valid, ...tenants, ...env }).warnings
  t.match(warningsOf({}), [/^OAUTH_REQUIRE_ISS: 2 tenants share one client and one redirect URI, and the sign-ins of north, south need not carry iss \(RFC 9207\).*RFC 9700.*Set OAUTH_REQUIRE_ISS=on/], 'left unset: a warning naming them')
  t.match(problemsOf({ ...valid, ...tenants, NODE_ENV: 'production' }), [/^OAUTH_REQUIRE_ISS: 2 tenants share one client.*or OAUTH_REQUIRE_ISS=off to accept the risk \(NODE_ENV=production\)$/], 'in production, refused')
  t.same(problemsOf({ ...valid, ...tenants, NODE_ENV: 'production', OAUTH_REQUIRE_ISS: 'off' }), [], 'unless the operator says off')
  t.match(warningsOf({ NODE_ENV: 'production', OAUTH_REQUIRE_ISS: 'off' }), [/^OAUTH_REQUIRE_ISS: 2 tenants/], 'and is still told at start')
  t.same(warningsOf({ OAUTH_REQUIRE_ISS: 'on' }), [], 'every tenant checked: nothing to say')
  t.same(warningsOf({ OAUTH_REQUIRE_ISS: 'north,south' }), [])
  t.match(warningsOf({ OAUTH_REQUIRE_ISS: 'north' }), [/the sign-ins of south need not carry iss/], 'the tenants left out are named')
  t.same(loadConfig(valid).warnings, [], 'one tenant: no mix-up to defend against')
})

t.test('a channel URL given with its /api is refused, naming the fix', async (t) => {
  t.match(problemsOf({ ...valid, MEDIA_BASE_URL: 'https://tenant.media.example/api/' }), [/^MEDIA_BASE_URL: tenant "default": https:\/\/tenant\.media\.example\/api ends in \/api; give the channel's URL without it/])
  t.equal(loadConfig({ ...valid, MEDIA_BASE_URL: 'https://tenant.media.example/apis' }).tenants.get('default')?.apiUrl, 'https://tenant.media.example/apis/api', 'a path that only starts with api is a channel path like any other')
})

t.test('every problem is reported at once, and no secret is echoed', async (t) => {
  const key = Buffer.alloc(16, 9).toString('base64')
  const problems = problemsOf({ PUBLIC_URL: 'nope', TOKEN_KEYS: `k1:${key}`, SESSION_SECRETS: 'short-secret-value' })
  for (const variable of ['PUBLIC_URL', 'MEDIA_BASE_URL', 'OAUTH_CLIENT_ID', 'OAUTH_CLIENT_SECRET', 'SESSION_SECRETS', 'TOKEN_KEYS']) {
    t.ok(problems.some((problem) => problem.startsWith(`${variable}:`)), `${variable} named`)
  }
  t.notOk(problems.join('\n').includes(key), 'the key is not echoed')
  t.notOk(problems.join('\n').includes('short-secret-value'), 'the secret is not echoed')
})

t.test('REDIS_URL is checked by the store\'s own parser: every form docs/guide/deploy.md offers loads', async (t) => {
  for (const url of ['redis://redis:6379', 'rediss://:pw@cache.example:6380/2', 'redis+sentinel://s1:26379,s2:26379/mymaster', 'rediss+sentinel://s1:26379,s2:26379/mymaster', 'redis+cluster://n1:6379,n2:6379', 'rediss+cluster://n1:6379,n2:6379']) {
    t.equal(loadConfig({ ...valid, REDIS_URL: url }).redisUrl, url, url)
  }
})

t.test('a bad REDIS_URL is reported with the parser\'s message, without the password', async (t) => {
  const url = 'redis+sentinel://:hunter2-hunter2@s1:26379'
  let parserMessage = ''
  try {
    parseRedisUrl(url)
  } catch (error) {
    parserMessage = (error as Error).message
  }
  t.match(parserMessage, /master name/)
  t.same(problemsOf({ ...valid, REDIS_URL: url }), [`REDIS_URL: ${parserMessage}`])
  t.same(problemsOf({ ...valid, REDIS_URL: 'redis://:hunter2-hunter2@h:6379/cache' }), ['REDIS_URL: Redis URL: the path must be a database number, e.g. redis://redis:6379/0'])
})

t.test('REDIS_PASSWORD is put into every form of REDIS_URL, encoded, and the store\'s parser reads it back', async (t) => {
  const password = 'p@ss:w/rd?#%'
  for (const [url, user] of [['redis://redis:6379', undefined], ['rediss://app@cache.example:6380/2', 'app'], ['redis+sentinel://s1:26379,s2/mymaster?sentinelPassword=other', undefined], ['rediss+cluster://n1:6379,n2:6379', undefined]] as const) {
    const combined = loadConfig({ ...valid, REDIS_URL: url, REDIS_PASSWORD: password }).redisUrl ?? ''
    t.equal(passwordOf(combined), password, url)
    const spec = parseRedisUrl(combined)
    t.equal(spec.mode === 'single' ? (new URL(combined).username || undefined) : spec.username, user, `${url}: the user name kept`)
  }
  t.same(problemsOf({ ...valid, REDIS_URL: 'redis://:one@redis:6379', REDIS_PASSWORD: 'two' }), ['REDIS_PASSWORD: is set and REDIS_URL carries a password too: keep one of them'])
  t.same(problemsOf({ ...valid, REDIS_PASSWORD: 'two' }), ['REDIS_PASSWORD: is only used with REDIS_URL'])
})

// NODE_ENV=production: what only the local demo may do is refused at start.
const production = {
  ...valid,
  NODE_ENV: 'production',
  TRUST_PROXY: '10.0.0.5',
  ALLOWED_ORIGINS: 'https://www.example.org',
  UPLOAD_ALLOWED_HOSTS: 'upload.media.example'
}

t.test('production: a correct configuration loads', async (t) => {
  const config = loadConfig(production)
  t.equal(config.publicUrl, 'https://media.example.org')
  t.same(config.trustProxy, ['10.0.0.5'])
  t.same(config.allowedOrigins, ['https://media.example.org', 'https://www.example.org'])
  t.same(config.upload.allowedHosts, ['upload.media.example'])
  t.equal(config.oauth.allowInsecureRequests, false)
  for (const trustProxy of ['10.0.0.0/8', '172.28.0.10', 'loopback,uniquelocal', '::ffff:10.0.0.0/104', 'fd00::/8', '::ffff:0.0.0.0/95', '0.0.0.0/1']) {
    t.doesNotThrow(() => loadConfig({ ...production, TRUST_PROXY: trustProxy }), `TRUST_PROXY=${trustProxy} is a bounded set of proxies`)
  }
})

t.test('production names what it runs without (TRUST_PROXY, METRICS_TOKEN, REDIS_URL, ASSERTION_KEYS), unless it is none on purpose', async (t) => {
  const warningsOf = (env: Record<string, string>): readonly string[] => [...loadConfig(env).warnings].sort()
  const { TRUST_PROXY: _proxy, ...withoutProxy } = production
  t.match(warningsOf(withoutProxy), [
    /^ASSERTION_KEYS: is unset: assertions for the site's own servers are signed with a key this instance made at start, so they do not verify against another replica's .* set it to none when no server of the site reads assertions/,
    /^METRICS_TOKEN: is unset: GET \/metrics and GET \/docs answer anyone who reaches this instance\. Set a token, or set it to none/,
    /^REDIS_URL: is unset: sessions, grants and locks live in this process's memory, so a second replica cannot see them .* set it to none for a single instance/,
    /^TRUST_PROXY: is unset: no proxy's X-Forwarded-\* is believed, so behind a reverse proxy every client has the proxy's address .* set it to none when clients reach media-bff directly \(NODE_ENV=production\)\.$/
  ], 'each named, with what it costs and how to say it is meant')
  t.equal(warningsOf(withoutProxy).length, 4)
  const meant = { ...withoutProxy, TRUST_PROXY: 'none', METRICS_TOKEN: 'none', REDIS_URL: 'none', ASSERTION_KEYS: 'none' }
  t.same(warningsOf(meant), [], 'none: left out on purpose, nothing to say')
  const config = loadConfig(meant)
  t.same(config.trustProxy, [], 'none is no proxy')
  t.equal(config.metricsToken, undefined, 'none is no token')
  t.equal(config.redisUrl, undefined, 'none is memory')
  t.same(config.assertions.keys, [], 'none is no assertions')
  t.same(warningsOf({ ...meant, TRUST_PROXY: '10.0.0.5', METRICS_TOKEN: 'm'.repeat(32), REDIS_URL: 'redis://redis:6379', ASSERTION_KEYS: testAssertionKey() }), [], 'set: nothing to say')
  t.same(warningsOf({ ...withoutProxy, NODE_ENV: 'development' }), [], 'outside production, the local demo runs without all four')
  t.same(problemsOf({ ...meant, REDIS_PASSWORD: 'two' }), ['REDIS_PASSWORD: is only used with REDIS_URL'], 'REDIS_URL=none is no Redis for everything that reads it')
  t.match(problemsOf({ ...meant, TRUST_PROXY: 'none,10.0.0.5' }), [/^TRUST_PROXY: "none" is not an IP address/], 'none alone, never in a list')
})

t.test('production refuses a plain-http PUBLIC_URL', async (t) => {
  const env = { ...production, PUBLIC_URL: 'http://media.example.org' }
  t.same(problemsOf(env), ['PUBLIC_URL: must be https when NODE_ENV=production (the session cookie is only Secure and __Host- over https)'])
  t.same(problemsOf({ ...env, NODE_ENV: 'development' }), [], 'the local demo may')
})

t.test('production refuses a plain-http OAUTH_REDIRECT_URI, or one off PUBLIC_URL\'s origin', async (t) => {
  t.doesNotThrow(() => loadConfig({ ...production, OAUTH_REDIRECT_URI: 'https://media.example.org/auth/callback' }), 'the default, spelled out')
  t.same(problemsOf({ ...production, OAUTH_REDIRECT_URI: 'http://media.example.org/auth/callback' }), ['OAUTH_REDIRECT_URI: must be https when NODE_ENV=production'])
  for (const uri of ['https://other.example.org/auth/callback', 'https://media.example.org:8443/auth/callback', 'https://evil.media.example.org/auth/callback']) {
    t.same(problemsOf({ ...production, OAUTH_REDIRECT_URI: uri }), ['OAUTH_REDIRECT_URI: must be on PUBLIC_URL\'s origin (https://media.example.org) when NODE_ENV=production'], uri)
    t.same(problemsOf({ ...production, OAUTH_REDIRECT_URI: uri, NODE_ENV: 'development' }), [], `${uri}: outside production it is the operator's call`)
  }
})

t.test('production refuses a plain-http origin in ALLOWED_ORIGINS', async (t) => {
  const env = { ...production, ALLOWED_ORIGINS: 'https://www.example.org, http://legacy.example.org' }
  t.same(problemsOf(env), ['ALLOWED_ORIGINS: "http://legacy.example.org" is plain http; only https origins are allowed when NODE_ENV=production'])
  t.same(problemsOf({ ...env, NODE_ENV: 'test' }), [])
})

t.test('production refuses a TRUST_PROXY that trusts every address, however it is spelled', async (t) => {
  const catchAlls = [
    '0.0.0.0/0', '::/0', '0.0.0.0/00', '10.0.0.5,0.0.0.0/0',
    '::ffff:0.0.0.0/96', '::ffff:0:0/96', '::FFFF:0.0.0.0/96', '0:0:0:0:0:ffff:0:0/96', '::ffff:255.255.255.255/96',
    '0.0.0.0/1,128.0.0.0/1', '::ffff:0.0.0.0/97,128.0.0.0/1', '0.0.0.0/2,64.0.0.0/2,128.0.0.0/1',
    '2000::/3', '::/1,8000::/1', '2000::/4,3000::/4'
  ]
  for (const trustProxy of catchAlls) {
    const problems = problemsOf({ ...production, TRUST_PROXY: trustProxy })
    t.equal(problems.length, 1, `${trustProxy}: ${problems.join('; ')}`)
    t.match(problems[0], /^TRUST_PROXY: .*trusts? every (IPv4 |public IPv6 )?address.*list only the reverse proxies' addresses/, trustProxy)
  }
  t.same(problemsOf({ ...production, TRUST_PROXY: '::ffff:0.0.0.0/96', NODE_ENV: 'development' }), [], 'outside production, a catch-all that works is allowed')
  t.match(problemsOf({ ...production, TRUST_PROXY: '0.0.0.0/0', NODE_ENV: 'development' }), [/^TRUST_PROXY: "0\.0\.0\.0\/0" trusts every address/], 'a /0 never starts (the proxy-address matcher throws on it): named in any environment')
})

t.test('production refuses an unset or empty UPLOAD_ALLOWED_HOSTS', async (t) => {
  for (const hosts of [undefined, '', ' , ']) {
    const env: Record<string, string> = { ...production }
    if (hosts === undefined) delete env.UPLOAD_ALLOWED_HOSTS
    else env.UPLOAD_ALLOWED_HOSTS = hosts
    t.same(problemsOf(env), ['UPLOAD_ALLOWED_HOSTS: is required when NODE_ENV=production: the hosts (host or host:port) url_upload_direct may point at, e.g. upload.media.example'], JSON.stringify(hosts))
  }
  t.same(problemsOf({ ...valid, NODE_ENV: 'development' }), [], 'outside production, any https host')
})

t.test('production: every refusal is reported at once', async (t) => {
  const problems = problemsOf({ ...production, PUBLIC_URL: 'http://media.example.org', ALLOWED_ORIGINS: 'http://a.example', TRUST_PROXY: '::/0', UPLOAD_ALLOWED_HOSTS: '' })
  t.same(problems.map((problem) => problem.split(':')[0]).sort(), ['ALLOWED_ORIGINS', 'PUBLIC_URL', 'TRUST_PROXY', 'UPLOAD_ALLOWED_HOSTS'])
})

t.test('METRICS_TOKEN: unset leaves /metrics and /docs open; set, it is kept for the plugins and never echoed', async (t) => {
  t.equal(loadConfig(valid).metricsToken, undefined)
  const token = 'm'.repeat(20) + 'E'.repeat(20)
  t.equal(loadConfig({ ...valid, METRICS_TOKEN: token }).metricsToken, token)
  const problems = problemsOf({ ...valid, METRICS_TOKEN: 'short-metrics-token' })
  t.match(problems, [/^METRICS_TOKEN: must be a random string of at least 32 characters/])
  t.notMatch(problems.join('\n'), 'short-metrics-token', 'the token is not echoed')
})

t.test('the configuration is frozen all the way down: it never grows or changes while media-bff runs', async (t) => {
  const config = loadConfig({ ...valid, MEDIA_BASE_URL: '', MEDIA_TENANTS: 'north=https://north.example,south=https://south.example', WEBHOOK_KEYS: 'north:key-of-north-0123456789' })
  t.ok(Object.isFrozen(config) && Object.isFrozen(config.oauth) && Object.isFrozen(config.oauth.scopes) && Object.isFrozen(config.session))
  t.throws(() => { (config.oauth.scopes as string[]).push('share') }, TypeError)
  t.throws(() => { (config as { port: number }).port = 1 }, TypeError)
  // Read-only in their type too; at run time, whatever a cast would let through throws.
  t.throws(() => { (config.tenants as Map<string, unknown>).set('west', {}) }, TypeError, 'its maps too')
  t.throws(() => { (config.webhooks.keys as Map<string, unknown>).delete('north') }, TypeError)
  t.ok(Object.isFrozen(config.tenants.get('north')), 'and what they hold')
})
