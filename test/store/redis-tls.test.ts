// Redis over TLS whose certificate a private CA signed, as managed and company Redis often are:
// trusted by configuration alone (REDIS_TLS_CA_FILE), and when it is not trusted, readiness says
// the store is what is wrong and, to operators, why.
import t from 'tap'
import { request } from 'undici'
import { startStack } from '../helpers/bff.js'
import { startRedis } from '../helpers/redis.js'
import { makeSelfSignedCert } from '../helpers/tls.js'
import { signIn } from '../helpers/sign-in.js'
import { loadConfig } from '../../src/config/config.js'

// A certificate that is its own CA: nothing the system trusts.
const cert = await makeSelfSignedCert('localhost')
t.teardown(cert.remove)
const redis = await startRedis({ tls: { certFile: cert.certFile, keyFile: cert.keyFile } })
t.teardown(redis.destroy)

t.test('rediss:// with REDIS_TLS_CA_FILE: sessions live in Redis over TLS', async (t) => {
  t.match(redis.url, /^rediss:\/\//)
  const stack = await startStack({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'tls:', REDIS_TLS_CA_FILE: cert.certFile } })
  t.teardown(stack.close)
  const ready = await request(`${stack.bff.url}/readyz`)
  t.same(await ready.body.json(), { status: 'ready', store: 'redis', tenants: 1, checks: { store: 'ok', configuration: 'ok' } })
  const browser = stack.bff.browser()
  t.equal((await signIn(browser)).callback.status, 302)
  t.equal((await browser.get('/auth/session')).json().authenticated, true, 'signed in, over TLS')
})

t.test('without the CA the certificate is refused: /readyz names the store, and tells an operator why', async (t) => {
  const metricsToken = 'metrics-token-0123456789-abcdefghijklmnop'
  const stack = await startStack({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'tls-untrusted:', METRICS_TOKEN: metricsToken } })
  t.teardown(stack.close)
  const anyone = await request(`${stack.bff.url}/readyz`)
  t.equal(anyone.statusCode, 503)
  t.same((await anyone.body.json() as { checks: unknown }).checks, { store: 'unreachable', configuration: 'ok' }, 'the store is what is wrong')
  const operator = await request(`${stack.bff.url}/readyz`, { headers: { authorization: `Bearer ${metricsToken}` } })
  const { checks } = await operator.body.json() as { checks: { store: string } }
  t.match(checks.store, /^unreachable: redis cannot be reached: .*(self[- ]signed|certificate)/i, `and why (${checks.store})`)
})

t.test('without METRICS_TOKEN nobody is told why on the wire (it names internal addresses); the log says it once', async (t) => {
  const stack = await startStack({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'tls-no-token:' } })
  t.teardown(stack.close)
  for (const headers of [{}, { authorization: 'Bearer anything-at-all-0123456789-abcdefghijkl' }]) {
    const answer = await request(`${stack.bff.url}/readyz`, { headers })
    t.equal(answer.statusCode, 503)
    t.same((await answer.body.json() as { checks: unknown }).checks, { store: 'unreachable', configuration: 'ok' }, 'which part, never why')
  }
  const lines = stack.bff.logs.filter((line) => line.includes('not ready: the store cannot be reached'))
  t.equal(lines.length, 1, 'logged once while it stays down')
  t.match(lines[0], /certificate|self[- ]signed/i, 'with why')
})

t.test('REDIS_TLS_CA_FILE is checked at start: a TLS URL, a readable PEM file', async (t) => {
  const base = { PUBLIC_URL: 'http://127.0.0.1:3000', MEDIA_BASE_URL: 'http://127.0.0.1:4000', OAUTH_CLIENT_ID: 'c', OAUTH_CLIENT_SECRET: 's', SESSION_SECRETS: 'x'.repeat(32), TOKEN_KEYS: `k:${Buffer.alloc(32, 1).toString('base64')}` }
  const problems = (env: Record<string, string>): string => { try { loadConfig({ ...base, ...env }); return '' } catch (error) { return (error as Error).message } }
  t.equal(loadConfig({ ...base, REDIS_URL: redis.url, REDIS_TLS_CA_FILE: cert.certFile }).redisTlsCa, cert.cert)
  t.match(problems({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_TLS_CA_FILE: cert.certFile }), /REDIS_TLS_CA_FILE: is only used with a TLS REDIS_URL/)
  t.match(problems({ REDIS_URL: redis.url, REDIS_TLS_CA_FILE: `${cert.dir}/missing.pem` }), /REDIS_TLS_CA_FILE: .*missing\.pem cannot be read \(ENOENT\)/)
  t.match(problems({ REDIS_URL: redis.url, REDIS_TLS_CA_FILE: cert.keyFile }), /holds no PEM certificate/)
})
