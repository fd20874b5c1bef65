// SIGTERM, as `docker stop` sends it, while a registration is in flight on one replica: that
// request finishes, whatever else reaches the closing process is turned away in a way clients
// and nginx can act on, the process exits 0, and nginx sends everyone to the other replica.
import { once } from 'node:events'
import t from 'tap'
import { Client, request, type Dispatcher } from 'undici'
import { uploadDirect } from '../helpers/direct-upload.js'
import { signIn } from '../helpers/sign-in.js'
import { startProductionStack } from './stack.js'

// The media service takes this long to register, so the request is surely still in flight
// when the test, on a loaded machine, has sent SIGTERM and written its second request.
const REGISTER_DELAY_MS = 3000

const stack = await startProductionStack(t)
const [leaving, staying] = stack.replicas as [typeof stack.replicas[0], typeof stack.replicas[0]]

/** Rejects with the error's code (ECONNREFUSED, ...), or resolves with the status when answered. */
const outcome = async (answer: Promise<Dispatcher.ResponseData>): Promise<string | number> => {
  try {
    const response = await answer
    await response.body.dump()
    return response.statusCode
  } catch (error) {
    return (error as { code?: string }).code ?? String(error)
  }
}

t.test('SIGTERM during a registration: it completes, the process turns the rest away and exits 0', async (t) => {
  const browser = stack.browser()
  await signIn(browser)
  const headers = { cookie: browser.cookieHeader() ?? '', 'x-csrf': '1', 'content-type': 'application/json' }

  // Two connections straight to the replica (nginx would hide what the replica does). `idle`
  // is open and idle when the close begins; `busy` carries the registration and, pipelined
  // behind it, a request written after SIGTERM. pipelining: 2 lets undici write that second
  // request before the first answer; blocking: false on the first allows it.
  const idle = new Client(leaving.url, { keepAliveTimeout: 60_000 })
  const busy = new Client(leaving.url, { keepAliveTimeout: 60_000, pipelining: 2 })
  t.teardown(async () => { await Promise.all([idle.destroy(), busy.destroy()]) })
  t.equal(await outcome(idle.request({ method: 'GET', path: '/healthz' })), 200, 'the idle connection is open')
  const idleClosed = once(idle, 'disconnect')

  stack.emulator.injectFault({ endpoint: 'upload_id', delayMs: REGISTER_DELAY_MS })
  t.teardown(() => { stack.emulator.clearFaults() })
  let answered = false
  const registering = busy.request({ method: 'POST', path: '/uploads/register', headers, body: JSON.stringify({ folder_id: 0, title: 'Sent before SIGTERM' }), blocking: false })
  registering.then(() => { answered = true }, () => { answered = true })
  await leaving.waitForLog((line) => line.msg === 'incoming request' && (line.req as { path?: string } | undefined)?.path === '/uploads/register')

  const exited = leaving.stop('SIGTERM')
  const closing = await leaving.waitForLog((line) => line.msg === 'closing')
  t.equal(closing.signal, 'SIGTERM')
  // On the connection that is still busy, a request arriving now gets the contract's 503.
  const duringClose = busy.request({ method: 'GET', path: '/auth/session', headers })
  t.notOk(answered, 'the second request is written while the registration is still in flight')

  // The listener closed at once and the idle keep-alive connection was closed by the server:
  // a request meant for it needs a new connection, which is refused.
  await idleClosed
  t.equal(await outcome(idle.request({ method: 'GET', path: '/auth/session', headers })), 'ECONNREFUSED', 'the idle connection was closed; reconnecting is refused')
  t.equal(await outcome(request(`${leaving.url}/healthz`)), 'ECONNREFUSED', 'a new connection is refused')

  const registered = await registering
  t.equal(registered.statusCode, 200, 'the registration in flight at SIGTERM completed')
  const record = await registered.body.json() as { ulid: string, url_upload_direct: string, finish_url: string }
  t.match(record, { ulid: String, url_upload_direct: /^http:\/\//, finish_url: `/uploads/${record.ulid}/finish` })

  const turnedAway = await duringClose
  t.equal(turnedAway.statusCode, 503, 'a request on an open connection during the close')
  t.same(await turnedAway.body.json(), { error: 'unavailable', message: 'media-bff is restarting; try again in a moment.' })
  t.equal(turnedAway.headers['retry-after'], '2')
  t.equal(turnedAway.headers.connection, 'close', 'and the connection is closed after it')

  t.equal(await exited, 0, 'the process exits 0 once the registration is answered')
  t.notOk(leaving.running)

  // Everything the in-flight request stored is in Redis: the other replica finishes the upload
  // that was registered on the one that left, and nginx sends the browser there.
  t.equal((await uploadDirect(record.url_upload_direct, 'late.txt', 'registered during shutdown')).status, 200)
  const finished = await browser.post(record.finish_url)
  t.equal(finished.status, 200, finished.text)
  t.equal(stack.servedBy(finished), staying, `served by ${staying.name}`)
  t.match(finished.json(), { status: 'success', files: [{ filename: 'late.txt' }] })
  t.equal((await browser.get('/auth/session')).json().authenticated, true, 'still signed in, with one replica left')
})
