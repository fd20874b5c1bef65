// The upload host answers some uploads before their body has arrived (a bad signature, an
// expired URL, a declared length over the limit, an unknown folder). A browser is then still
// sending; if the server closed at once, the bytes still arriving would make its kernel answer
// with a reset, and a browser that reads the answer only after sending loses it ("connection
// reset"). So the host keeps reading and discarding the body for a while, within bounds, then
// closes. Raw sockets, because an HTTP client would hide what happens on the wire.
import { connect, type Socket } from 'node:net'
import t from 'tap'
import { apiCall, registerUpload, startTestEmulator, user } from '../helpers/emulator.js'

const chunk = Buffer.alloc(64 * 1024, 0x61)

interface RawAnswer { status: number, headers: string, body: string }

function parseAnswer (bytes: Buffer): RawAnswer | undefined {
  const text = bytes.toString('latin1')
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const headers = text.slice(0, end)
  const length = /\r\ncontent-length: *(\d+)/i.exec(headers)?.[1]
  const body = text.slice(end + 4)
  if (length === undefined || Buffer.byteLength(body, 'latin1') < Number(length)) return undefined
  return { status: Number(headers.split(' ')[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8') }
}

/** A connection that records what it receives and how it ended. */
function openSocket (url: URL): { socket: Socket, received: () => Buffer, ended: Promise<{ error: string | undefined }> } {
  // allowHalfOpen: Node would otherwise end its side as soon as the emulator's FIN arrives; a
  // client that goes on sending must not.
  const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true })
  const chunks: Buffer[] = []
  let error: string | undefined
  socket.on('data', (data: Buffer) => { chunks.push(data) })
  socket.on('error', (failure: NodeJS.ErrnoException) => { error = failure.code ?? failure.message })
  const ended = new Promise<{ error: string | undefined }>((resolve) => { socket.once('close', () => { resolve({ error }) }) })
  return { socket, received: () => Buffer.concat(chunks), ended }
}

function requestHead (url: URL, contentLength: number): string {
  return `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nOrigin: https://www.example.test\r\n` +
    `Content-Type: multipart/form-data; boundary=linger\r\nContent-Length: ${contentLength}\r\n\r\n` +
    '--linger\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n'
}

/** Writes n chunks, each after the previous one was taken by the kernel (a slow sender). */
async function sendChunks (socket: Socket, n: number): Promise<void> {
  for (let i = 0; i < n && !socket.destroyed; i++) {
    await new Promise<void>((resolve) => { socket.write(chunk, () => { resolve() }) })
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}

/** Sends the head and `chunks` body chunks without reading, then ends and reads everything. */
async function sendThenRead (url: URL, chunks: number, declared = chunks * chunk.length + 1000): Promise<{ error: string | undefined, answer: RawAnswer | undefined }> {
  const { socket, received, ended } = openSocket(url)
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  // Like a browser busy uploading: nothing is read until the whole body is sent.
  socket.pause()
  socket.write(requestHead(url, declared))
  await sendChunks(socket, chunks)
  socket.end()
  socket.resume()
  const { error } = await ended
  return { error, answer: parseAnswer(received()) }
}

t.test('an invalid signature: the 4xx JSON reaches a client that reads only after sending its body', async (t) => {
  const emulator = await startTestEmulator(t)
  const record = await registerUpload(emulator)
  const { error, answer } = await sendThenRead(new URL(record.url_upload_direct.replace(/sig=[^&]+/, 'sig=forged')), 64)
  t.equal(error, undefined, 'no reset, no broken pipe')
  t.ok(answer, 'a complete answer arrived')
  t.equal(answer?.status, 403)
  t.match(answer?.headers, /\r\nconnection: close/i, 'Connection: close tells the client to stop sending')
  t.match(answer?.headers, /\r\naccess-control-allow-origin: https:\/\/www\.example\.test/i, 'readable by the page')
  t.match(JSON.parse(answer?.body ?? '{}'), { error: 'invalid_signature', error_description: String, user_message: String })
})

t.test('every answer before the body lingers: finished, unknown folder, declared too large, a fault, a limit crossed mid-stream', async (t) => {
  const emulator = await startTestEmulator(t)
  const finished = await registerUpload(emulator)
  await apiCall(finished.api.finish, { method: 'DELETE', privateToken: user(emulator, 'alice').privateToken })
  const open = await registerUpload(emulator, { max_filesize: String(1024 * 1024) })
  const cases: Array<[string, URL, number, string, number?]> = [
    ['a finished upload', new URL(finished.url_upload_direct), 410, 'upload_finished'],
    ['a folder the user lacks', new URL(`${open.url_upload_direct}&folder_id=99`), 404, 'folder_not_found'],
    ['a declared length no allowed file fits', new URL(open.url_upload_direct), 413, 'file_too_large', 200 * 1024 * 1024],
    ['a file crossing max_filesize mid-stream', new URL(open.url_upload_direct), 413, 'file_too_large']
  ]
  for (const [name, url, status, code, declared] of cases) {
    const { error, answer } = await sendThenRead(url, 48, declared)
    t.equal(error, undefined, `${name}: no reset`)
    t.equal(answer?.status, status, name)
    t.match(JSON.parse(answer?.body ?? '{}'), { error: code }, name)
  }
  emulator.injectFault({ endpoint: 'upload_direct', failStatus: 503 })
  const { error, answer } = await sendThenRead(new URL(open.url_upload_direct), 48)
  t.equal(error, undefined, 'an injected failure: no reset')
  t.equal(answer?.status, 503)
  t.same(await (await fetch(`${emulator.baseUrl}/__emulator/files`)).json(), { files: [] }, 'nothing was stored')
})

t.test('a client that keeps sending is cut off once the byte bound is discarded', async (t) => {
  const bytes = 2 * 1024 * 1024
  const emulator = await startTestEmulator(t, { lingeringClose: { bytes, ms: 120_000 } })
  const record = await registerUpload(emulator)
  const url = new URL(record.url_upload_direct.replace(/sig=[^&]+/, 'sig=forged'))
  const { socket, received, ended } = openSocket(url)
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  socket.write(requestHead(url, 1024 * 1024 * 1024))
  let sent = 0
  // Sends as fast as the socket takes it, forever: only the emulator can end this.
  const flood = (async () => {
    while (!socket.destroyed && !socket.writableEnded) {
      const more = socket.write(chunk)
      sent += chunk.length
      if (!more) await new Promise<void>((resolve) => { socket.once('drain', resolve); socket.once('close', resolve) })
    }
  })()
  const { error } = await ended
  await flood
  t.ok(error === undefined || ['ECONNRESET', 'EPIPE'].includes(error), `closed by the emulator (${error ?? 'FIN'})`)
  t.ok(sent > bytes, `after more than the bound was sent (${sent} bytes)`)
  t.equal(parseAnswer(received())?.status, 403, 'the answer came first')
})

t.test('a client that keeps sending slowly is cut off once the time bound has passed', async (t) => {
  const emulator = await startTestEmulator(t, { lingeringClose: { bytes: 1024 * 1024 * 1024, ms: 300 } })
  const record = await registerUpload(emulator)
  const url = new URL(record.url_upload_direct.replace(/sig=[^&]+/, 'sig=forged'))
  const { socket, received, ended } = openSocket(url)
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  const started = Date.now()
  socket.write(requestHead(url, 1024 * 1024 * 1024))
  // A trickle: a little more whenever the previous bytes were taken, never the end.
  const trickle = setInterval(() => { if (!socket.destroyed) socket.write(chunk.subarray(0, 512)) }, 10)
  t.teardown(() => { clearInterval(trickle) })
  const { error } = await ended
  clearInterval(trickle)
  t.ok(error === undefined || ['ECONNRESET', 'EPIPE'].includes(error), `closed by the emulator (${error ?? 'FIN'})`)
  t.ok(Date.now() - started >= 290, 'not before the bound')
  t.equal(parseAnswer(received())?.status, 403, 'the answer came first')
})
