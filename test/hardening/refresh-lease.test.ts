// Hardening: a replica that stalls while it holds a grant's refresh lock. Long stalls happen
// (garbage collection, CPU starvation: the 5-minute soak saw answers take 14 s); the other replica
// must not start a second refresh with the same refresh token meanwhile, or the authorization
// server sees reuse, revokes the grant, and the user is signed out.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { bffEnv, startEmulatorFor } from '../helpers/bff.js'
import { freePort } from '../helpers/ports.js'
import { startRedis } from '../helpers/redis.js'
import { consent } from '../helpers/sign-in.js'
import { startReplica } from './replica.js'
import { SecretLedger } from './secrets.js'

t.test('replica A stalls for 2.6 s mid-refresh; replica B serves the same session meanwhile', async (t) => {
  const redis = await startRedis()
  t.teardown(redis.destroy)
  const [portA, portB] = [await freePort(), await freePort()]
  const emulator = await startEmulatorFor(portA, { clientSecret: randomBytes(24).toString('base64url') })
  t.teardown(emulator.stop)
  const env = bffEnv(emulator, `http://127.0.0.1:${portA}`, { REDIS_URL: redis.url, OAUTH_SCOPES: 'basic user.info upload' })
  const [a, b] = await Promise.all([startReplica({ name: 'A', env, port: portA }), startReplica({ name: 'B', env, port: portB })])
  t.teardown(async () => { process.kill(a.pid, 'SIGCONT'); await a.stop(); await b.stop() })

  // Signed in with a token that lives 1 s, so the next upload call must refresh.
  const ledger = new SecretLedger()
  emulator.configure({ accessTokenTtl: 1 })
  const browser = a.browser()
  const login = await browser.get('/auth/login')
  const callbackUrl = new URL(await consent(browser, login.location ?? ''))
  ledger.addCallback(callbackUrl)
  t.equal((await browser.get(`${callbackUrl.pathname}${callbackUrl.search}`)).status, 302, 'signed in')
  emulator.configure({ accessTokenTtl: 3600 })
  await sleep(1100)

  // A takes the lock and sends the refresh; the token endpoint takes 3 s. A then stalls past the
  // lock's lease while B gets a call for the same session.
  emulator.injectFault({ endpoint: 'token', delayMs: 3000 })
  const viaA = browser.post(`${a.url}/uploads/register`, { folder_id: 0 })
  await sleep(400)
  process.kill(a.pid, 'SIGSTOP')
  await sleep(2600)
  const viaB = browser.post(`${b.url}/uploads/register`, { folder_id: 0 })
  await sleep(300)
  process.kill(a.pid, 'SIGCONT')
  const answers = await Promise.all([viaA, viaB])
  emulator.clearFaults()

  for (const [name, answer] of [['A', answers[0]], ['B', answers[1]]] as const) {
    t.ok(answer.status === 200 || answer.status === 503, `${name} answers 200 or 503, never a sign-out (${answer.status} ${answer.text.slice(0, 100)})`)
  }
  t.equal(emulator.counters().refreshReuseDetections, 0, 'one refresh for the expiry: no refresh token presented twice')
  t.equal((await browser.get(`${b.url}/auth/session`)).json().authenticated, true, 'still signed in')
  t.equal((await browser.post(`${b.url}/uploads/register`, { folder_id: 0 })).status, 200, 'the same cookie works afterwards')

  ledger.addCookies(browser)
  await ledger.addEmulator(emulator)
  t.same(ledger.leaksIn(`${a.output()}\n${b.output()}`), [], `none of ${ledger.size} secrets in the logs`)
})
