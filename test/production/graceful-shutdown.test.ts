// SIGTERM, as `docker stop` sends it, while a registration is in flight on one replica: that
// request finishes, whatever else reaches the closing process is turned away in a way clients
// and nginx can act on, the process exits 0, and nginx sends everyone to the other replica.
import diagnostics from 'node:diagnostics_channel'
import { once } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import t from 'tap'
import { Client, request, type Dispatcher } from 'undici'
import { uploadDirect } from '../helpers/direct-upload.js'
import type { LogLine } from '../helpers/processes.js'
import { signIn } from '../helpers/sign-in.js'
import { startProductionStack } from './stack.js'

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

/** Matches the lines `match` accepts among those logged after `first`. */
const loggedAfter = (first: LogLine, match: (line: LogLine) => boolean): (line: LogLine) => boolean => {
  let seen = false
  return (line) => {
    if (line === first) seen = true
    else if (seen) return match(line)
    return false
  }
}

/**
 * Holds the media service's answer to the next registration (the emulator runs in this process)
 * until release(). Once it has reached the service, the registration is in media-bff's route
 * handler, past every hook, and stays in flight for as long as the test needs: no timing.
 */
function holdNextRegistration (): { reachedService: Promise<void>, release: () => void } {
  let reached = (): void => {}
  const reachedService = new Promise<void>((resolve) => { reached = resolve })
  let release = (): void => {}
  const released = new Promise<void>((resolve) => { release = resolve })
  const onRequest = (message: unknown): void => {
    const { request, response } = message as { request: IncomingMessage, response: ServerResponse }
    if (request.method !== 'POST' || request.url?.startsWith('/api/upload/id') !== true) return
    diagnostics.unsubscribe('http.server.request.start', onRequest)
    // Headers and body both leave with end(); until then the answer is not on the wire.
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse
    response.end = ((...args: unknown[]) => {
      released.then(() => end(...args), () => {})
      return response
    }) as ServerResponse['end']
    reached()
  }
  diagnostics.subscribe('http.server.request.start', onRequest)
  return { reachedService, release }
}

t.test('SIGTERM during a registration: it completes, the process turns the rest away and exits 0', async (t) => {
  const browser = stack.browser()
  await signIn(browser)
  const headers = { cookie: browser.cookieHeader() ?? '', 'x-csrf': '1', 'content-type': 'application/json' }

  // Two connections straight to the replica (nginx would hide what the replica does). `idle`
  // is open and idle when the close begins; `busy` carries the registration and, pipelined
  // behind it, a request written during the close. pipelining: 2 lets undici write that second
  // request before the first answer; blocking: false on the first allows it.
  const idle = new Client(leaving.url, { keepAliveTimeout: 60_000 })
  const busy = new Client(leaving.url, { keepAliveTimeout: 60_000, pipelining: 2 })
  t.teardown(async () => { await Promise.all([idle.destroy(), busy.destroy()]) })
  t.equal(await outcome(idle.request({ method: 'GET', path: '/healthz' })), 200, 'the idle connection is open')
  const idleClosed = once(idle, 'disconnect')

  const held = holdNextRegistration()
  t.teardown(held.release)
  let answered = false
  const registering = busy.request({ method: 'POST', path: '/uploads/register', headers, body: JSON.stringify({ folder_id: 0, title: 'Sent before SIGTERM' }), blocking: false })
  registering.then(() => { answered = true }, () => { answered = true })
  await held.reachedService

  const exited = leaving.stop('SIGTERM')
  const closing = await leaving.waitForLog((line) => line.msg === 'closing')
  t.equal(closing.signal, 'SIGTERM')
  // The server closes its idle keep-alive connections as it stops listening, which comes after
  // the close hooks have put it in the closing state: from here on that state is certain.
  await idleClosed
  t.pass('the server closed the idle keep-alive connection')

  // On the connection that is still busy, a request written now is received during the close and
  // turned away at once (its answer waits behind the registration's on that connection).
  const duringClose = busy.request({ method: 'GET', path: '/auth/session', headers })
  await leaving.waitForLog(loggedAfter(closing, (line) => line.msg === 'request failed' && (line.err as { code?: string } | undefined)?.code === 'unavailable'))
  t.notOk(answered, 'the registration is still in flight when the second request arrives')

  // No new connection is served any more. Whether a client sees it refused or reset depends on
  // timing and is no part of the contract; that it gets no answer is.
  const reconnect = await outcome(idle.request({ method: 'GET', path: '/auth/session', headers }))
  t.type(reconnect, 'string', `the idle client, reconnecting, gets no answer (${reconnect})`)
  const fresh = await outcome(request(`${leaving.url}/healthz`))
  t.type(fresh, 'string', `a new connection gets no answer (${fresh})`)

  held.release()
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
