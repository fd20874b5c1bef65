// Every relayed call ends by its deadline (UPSTREAM_TIMEOUT_MS), body included, whichever side is
// slow: a service that drips its answer, a browser that reads the status line and then nothing.
// The relay has a connection pool of its own, so calls stuck that way never hold up register or
// finish. Real sockets throughout; the deadlines are short and every bound is generous.
import type { ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { request } from 'undici'
import { startBff } from '../helpers/bff.js'
import { freePort } from '../helpers/ports.js'
import { onServer } from '../helpers/sign-in.js'
import type { Browser } from '../helpers/http-client.js'
import { asUpstream, startHostileService } from '../hardening/hostile-media-service.js'

const DEADLINE_MS = 400
/** Far beyond the deadline, and still far below what the calls would take without one. */
const BOUND_MS = 4000

const service = await startHostileService()
t.teardown(service.close)
// A long public host name: links rewritten to it grow about eightfold, so an answer under the
// 4 MiB cap becomes far more than the kernel's socket buffers hold for a browser that stops reading.
const port = await freePort()
const longHost = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.test`
const bff = await startBff(asUpstream(service), { PUBLIC_URL: `http://${longHost}:${port}`, UPSTREAM_TIMEOUT_MS: String(DEADLINE_MS) }, port)
t.teardown(bff.close)
t.afterEach(async () => { service.reset() })

/** Signs in through the stand-in authorization server; the callback is on PUBLIC_URL's name, sent to the test server. */
async function signedIn (on: typeof bff): Promise<Browser> {
  const browser = on.browser()
  const login = await browser.get('/auth/login')
  const authorize = await browser.get(login.location ?? '')
  const callback = await browser.get(onServer(browser, authorize.location ?? ''))
  t.equal(callback.status, 302, 'signed in')
  return browser
}

/** When the service's side of each library call closed, in ms since the call arrived. */
function upstreamCloses (): { closed: number[], watch: (response: ServerResponse) => void } {
  const closed: number[] = []
  return {
    closed,
    watch: (response) => {
      const arrived = performance.now()
      response.socket?.once('close', () => { closed.push(performance.now() - arrived) })
    }
  }
}

async function within<T> (ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`${what}: not within ${ms} ms`)) }, ms) })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

t.test('a service that drips a long valid answer: the browser\'s answer is cut off shortly after the deadline', async (t) => {
  const browser = await signedIn(bff)
  const closes = upstreamCloses()
  service.answer('library', () => ({
    write: (response) => {
      closes.watch(response)
      response.writeHead(200, { 'content-type': 'application/json' })
      // 70 KB at once (past the 64 KiB checked before the status goes out), then 2 KB every 50 ms.
      response.write(`{"files":[${'"a valid entry",'.repeat(5000)}`)
      const drip = setInterval(() => { response.write('"another entry",'.repeat(128)) }, 50)
      response.once('close', () => { clearInterval(drip) })
    }
  }))
  const started = performance.now()
  const answer = await request(`${bff.url}/api/folders/0/contents`, { headers: { 'x-csrf': '1', cookie: browser.cookieHeader() ?? '' } })
  t.equal(answer.statusCode, 200, 'the status went out with the first 64 KiB')
  const body = await within(BOUND_MS, answer.body.text().then(() => 'complete', () => 'cut off'), 'the browser\'s answer')
  const elapsed = performance.now() - started
  t.equal(body, 'cut off')
  t.ok(elapsed >= DEADLINE_MS - 50 && elapsed < DEADLINE_MS + 2000, `ended after ${Math.round(elapsed)} ms`)
  await within(BOUND_MS, (async () => { while (closes.closed.length === 0) await sleep(10) })(), 'the upstream connection')
  t.ok((closes.closed[0] ?? Infinity) < DEADLINE_MS + 2000, 'the service\'s connection was closed')
  t.ok(bff.logs.some((line) => line.includes('a relayed answer failed while streaming') && line.includes('deadline')), 'logged')
  const metrics = (await browser.get('/metrics')).text
  t.match(metrics, /media_bff_relayed_cut_offs_total\{operation="folder_contents",reason="deadline"\} 1/, 'counted')
})

t.test('a service that drips before 64 KiB have come: a 504 at the deadline', async (t) => {
  const browser = await signedIn(bff)
  service.answer('library', () => ({
    write: (response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"files":[')
      const drip = setInterval(() => { response.write('"x",') }, 50)
      response.once('close', () => { clearInterval(drip) })
    }
  }))
  const started = performance.now()
  const answer = await within(BOUND_MS, browser.get('/api/folders/0/contents'), 'the answer')
  t.equal(answer.status, 504)
  t.equal(answer.json().error, 'upstream_timeout')
  t.ok(performance.now() - started < DEADLINE_MS + 2000)
})

t.test('a browser that reads the status line and then nothing: the call is closed on both sides after the deadline', async (t) => {
  const browser = await signedIn(bff)
  const closes = upstreamCloses()
  const links = Array.from({ length: 100_000 }, (_, i) => `"${service.baseUrl}/api/files/${i}"`)
  const body = Buffer.from(`{"links":[${links.join(',')}]}`)
  service.answer('library', () => ({
    write: (response) => {
      closes.watch(response)
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) })
      response.end(body)
    }
  }))
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  const received: Buffer[] = []
  const sent = performance.now()
  socket.write(`GET /api/folders/0/contents HTTP/1.1\r\nHost: bff\r\nX-CSRF: 1\r\nCookie: ${browser.cookieHeader() ?? ''}\r\n\r\n`)
  await within(BOUND_MS, new Promise<void>((resolve) => {
    let head = true
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk)
      if (head && Buffer.concat(received).includes('\r\n\r\n')) {
        head = false
        socket.pause()
        resolve()
      }
    })
  }), 'the status line')
  t.match(Buffer.concat(received).toString('latin1'), /^HTTP\/1\.1 200/)
  // The browser reads nothing more; the service's side must be let go at the deadline.
  await within(BOUND_MS, (async () => { while (closes.closed.length === 0) await sleep(10) })(), 'the upstream connection')
  t.ok(performance.now() - sent < DEADLINE_MS + 2000, `the service's connection closed ${Math.round(performance.now() - sent)} ms after the call`)
  // Reading again: what was in flight arrives, then the connection ends, the answer incomplete.
  const ended = new Promise<void>((resolve) => { socket.once('close', () => { resolve() }) })
  socket.resume()
  await within(BOUND_MS, ended, 'the browser\'s connection')
  const bytes = Buffer.concat(received).length
  t.ok(bytes < body.length * 2, `cut off after ${bytes} bytes (the whole answer is about ${Math.round(body.length * 6.5 / 1e6)} MB)`)
})

t.test('relayed calls stuck until their deadline never hold up register or finish', async (t) => {
  const slow = await startBff(asUpstream(service), { OAUTH_SCOPES: 'basic user.info upload', UPSTREAM_TIMEOUT_MS: '3000', RELAY_MAX_IN_FLIGHT_PER_USER: '100' })
  t.teardown(slow.close)
  const browser = await signedIn(slow)
  const open = new Set<ServerResponse>()
  service.answer('library', () => ({
    write: (response) => {
      open.add(response)
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"files":[')
      const drip = setInterval(() => { response.write('"x",') }, 100)
      response.once('close', () => { clearInterval(drip); open.delete(response) })
    }
  }))
  // More than a connection pool's 64 to the service, all dripping.
  const stuck = Array.from({ length: 70 }, async () => await browser.get('/api/folders/0/contents').catch((error: Error) => error))
  await within(BOUND_MS, (async () => { while (open.size < 64) await sleep(10) })(), '64 relayed calls at the service')
  const registered = await within(2000, browser.post('/uploads/register', { folder_id: 0 }), 'register')
  t.equal(registered.status, 200, 'register works')
  const finished = await within(2000, browser.post(registered.json().finish_url), 'finish')
  t.equal(finished.status, 200, 'finish works')
  t.ok(open.size >= 64, `while ${open.size} relayed calls were still held open`)
  const ends = await within(10_000, Promise.all(stuck), 'the stuck calls')
  t.ok(ends.every((answer) => !(answer instanceof Error) && answer.status === 504), 'each stuck call ended at its deadline with a 504')
})
