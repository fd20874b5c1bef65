// Graceful close, decided at arrival: a request that arrived before the close began finishes,
// even when its session was still loading from the store as the close began. (What arrives
// after the close began, and the whole SIGTERM path, is proven in graceful-shutdown.test.ts.)
import t from 'tap'
import fastifyCookie from '@fastify/cookie'
import { Client } from 'undici'
import { startBff, TEST_SESSION_SECRET } from '../helpers/bff.js'
import type { RunningEmulator } from '../../emulator/index.js'

t.test('a request whose session is loading when the close begins still gets its answer', async (t) => {
  const bff = await startBff({ baseUrl: 'http://127.0.0.1:9', clientId: 'client', clientSecret: 'secret' } as RunningEmulator)
  let releaseStore!: () => void
  const storeHeld = new Promise<void>((resolve) => { releaseStore = resolve })
  let reachedStore!: () => void
  const storeReached = new Promise<void>((resolve) => { reachedStore = resolve })
  const kv = bff.app.stores.people
  const get = kv.get.bind(kv)
  kv.get = async (key) => {
    reachedStore()
    await storeHeld
    return await get(key)
  }
  // A correctly signed cookie makes the session plugin read the store for this request.
  const cookie = `media-bff=${new fastifyCookie.Signer([TEST_SESSION_SECRET], 'sha256').sign('a'.repeat(32))}`
  // Its own client, destroyed after the answer: a kept-alive socket would hold the close open.
  const client = new Client(bff.url)
  const answer = client.request({ method: 'GET', path: '/auth/session', headers: { 'x-csrf': '1', cookie } })
  await storeReached
  const closed = bff.close()
  // Only once the close has begun may the store answer: Fastify stops listening after the
  // preClose hooks (where plugins/gate.ts marks the close) have run.
  while (bff.app.server.listening) await new Promise((resolve) => setImmediate(resolve))
  releaseStore()
  const response = await answer
  t.equal(response.statusCode, 200, 'arrived before the close: answered')
  t.same(await response.body.json(), { authenticated: false, login_url: '/auth/login' })
  await client.destroy()
  await closed
})
