// The per-user cap on relayed calls in flight (RELAY_MAX_IN_FLIGHT_PER_USER): a slow service
// holds calls open, the next call of the same person is a 429 with Retry-After, another person
// is not affected, and every way a call can end gives its slot back.
import type { ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { connect } from 'node:net'
import t from 'tap'
import { startBff } from '../helpers/bff.js'
import { signInWithoutConsent } from '../helpers/sign-in.js'
import { asUpstream, startHostileService } from '../hardening/hostile-media-service.js'

const service = await startHostileService()
t.teardown(service.close)
const bff = await startBff(asUpstream(service), { RELAY_MAX_IN_FLIGHT_PER_USER: '2', UPSTREAM_TIMEOUT_MS: '5000' })
t.teardown(bff.close)
t.afterEach(async () => { service.reset() })

/** Library calls the service holds unanswered until `answer` is called. */
function holdLibraryCalls (): { held: ServerResponse[], arrived: (count: number) => Promise<void>, answer: (status?: number) => void } {
  const held: ServerResponse[] = []
  const waiters: Array<() => void> = []
  service.answer('library', () => ({
    write: (response) => {
      held.push(response)
      for (const wake of waiters.splice(0)) wake()
    }
  }))
  return {
    held,
    arrived: async (count) => { while (held.length < count) await new Promise<void>((resolve) => waiters.push(resolve)) },
    answer: (status = 200) => {
      for (const response of held.splice(0)) {
        response.writeHead(status, { 'content-type': 'application/json' })
        response.end(JSON.stringify(status === 200 ? { folder_id: 0 } : { error: 'boom' }))
      }
    }
  }
}

async function signedIn (userId: number): Promise<ReturnType<typeof bff.browser>> {
  service.answer('user_info', () => ({ body: { user_id: userId, name: `User ${userId}`, email: `u${userId}@example.org`, scopes: ['basic', 'user.info'] } }))
  const browser = bff.browser()
  t.equal(await signInWithoutConsent(browser), '/')
  service.answer('user_info', undefined)
  return browser
}

t.test('past the cap: 429 rate_limited with Retry-After; another person is not affected; success and errors give slots back', async (t) => {
  const alice = await signedIn(7)
  const aliceAgain = await signedIn(7)
  const bob = await signedIn(8)
  const hold = holdLibraryCalls()
  const first = [alice.get('/api/folders/0'), aliceAgain.get('/api/folders/1')]
  await hold.arrived(2)
  const refused = await alice.get('/api/folders/2')
  t.equal(refused.status, 429, 'a third call of the same person, even from another sign-in')
  t.equal(refused.json().error, 'rate_limited')
  t.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After')
  t.equal(hold.held.length, 2, 'the refused call never reached the service')
  const bobCall = bob.get('/api/folders/0')
  await hold.arrived(3)
  t.pass('another person\'s call goes up')
  hold.answer()
  t.same((await Promise.all([...first, bobCall])).map((answer) => answer.status), [200, 200, 200])

  // Slots came back after success: two more at once go up; then after a 5xx (502) too.
  const again = [alice.get('/api/folders/0'), alice.get('/api/folders/0')]
  await hold.arrived(2)
  hold.answer(500)
  t.same((await Promise.all(again)).map((answer) => answer.status), [502, 502])
  const afterErrors = [alice.get('/api/folders/0'), alice.get('/api/folders/0')]
  await hold.arrived(2)
  hold.answer()
  t.same((await Promise.all(afterErrors)).map((answer) => answer.status), [200, 200], 'released after errors')
})

t.test('a browser that goes away, a stream that ends or fails: every slot comes back', async (t) => {
  const alice = await signedIn(7)
  const cookie = alice.cookieHeader() ?? ''
  // Two calls whose browsers hang up while the service is still thinking.
  const hold = holdLibraryCalls()
  const sockets = [0, 1].map(() => {
    const socket = connect(Number(new URL(bff.url).port), '127.0.0.1')
    socket.on('error', () => {})
    socket.write(`GET /api/folders/0 HTTP/1.1\r\nHost: bff\r\nX-CSRF: 1\r\nCookie: ${cookie}\r\n\r\n`)
    return socket
  })
  await hold.arrived(2)
  for (const socket of sockets) socket.destroy()
  // Their calls still hold the service until it answers; then the slots are free again.
  t.equal((await alice.get('/api/folders/0')).status, 429, 'still in flight upstream')
  hold.answer()
  service.answer('library', undefined)
  await waitUntil(async () => (await probe(alice)) === 'free')

  // Long answers stream: one that ends, one that fails half-way.
  const long = { folder_id: 0, files: Array.from({ length: 2000 }, (_, i) => ({ file_id: i, title: `File ${i}` })) }
  service.answer('library', () => ({ body: long }))
  t.equal((await alice.get('/api/folders/0')).status, 200)
  service.answer('library', () => ({
    write: (response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write(`{"files":[${'"x",'.repeat(30_000)}`)
      setTimeout(() => { response.destroy() }, 50)
    }
  }))
  for (let i = 0; i < 2; i++) t.ok(await alice.get('/api/folders/0').then(() => false, () => true), 'a stream that fails is cut off')
  service.answer('library', undefined)
  const both = await Promise.all([alice.get('/api/folders/0'), alice.get('/api/folders/0')])
  t.same(both.map((answer) => answer.status), [200, 200], 'both slots are free')
})

/** Whether alice could start two calls now: 'free' when neither is refused. */
async function probe (browser: ReturnType<typeof bff.browser>): Promise<'free' | 'busy'> {
  const answers = await Promise.all([browser.get('/api/folders/0'), browser.get('/api/folders/0')])
  return answers.every((answer) => answer.status === 200) ? 'free' : 'busy'
}

async function waitUntil (check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!await check()) {
    if (Date.now() > deadline) throw new Error('the condition never held')
    await sleep(20)
  }
}
