// Requests no well-behaved client will send (raw bytes in the path, CRLF in a header, a lying
// Content-Length, a 20 KB header): written byte for byte on a socket, the answer parsed by hand.
import { connect } from 'node:net'
import type { HttpResponse } from '../helpers/http-client.js'

/** Sends `head` (request line and headers, without the blank line) and `body`; resolves with the answer. */
export async function rawRequest (baseUrl: string, head: string, body: Buffer | string = '', timeoutMs = 10_000): Promise<HttpResponse> {
  const { hostname, port } = new URL(baseUrl)
  return await new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer within ${timeoutMs} ms to ${head.split('\r\n')[0] ?? ''}`)) }, timeoutMs)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      const answer = parse(Buffer.concat(chunks))
      // One answer is all we want; the server may keep the connection open.
      if (answer !== undefined) { clearTimeout(timer); socket.destroy(); resolve(answer) }
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      const answer = parse(Buffer.concat(chunks), true)
      if (answer !== undefined) resolve(answer)
      else reject(new Error(`connection closed without an answer to ${head.split('\r\n')[0] ?? ''}`))
    })
    socket.write(Buffer.concat([Buffer.from(`${head}\r\nConnection: close\r\n\r\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body]))
  })
}

function parse (data: Buffer, closed = false): HttpResponse | undefined {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string | string[] | undefined> = {}
  for (const line of lines) {
    const at = line.indexOf(':')
    const name = line.slice(0, at).trim().toLowerCase()
    const value = line.slice(at + 1).trim()
    const seen = headers[name]
    headers[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]
  }
  const rest = data.subarray(end + 4)
  const length = Number(headers['content-length'])
  if (Number.isFinite(length)) {
    if (rest.length < length) return undefined
  } else if (!closed && (headers['transfer-encoding'] === undefined || !rest.includes('0\r\n\r\n'))) {
    // Without a length the answer ends with its last chunk, or when the server closes.
    return undefined
  }
  const text = Number.isFinite(length) ? rest.subarray(0, length).toString('utf8') : dechunk(rest.toString('utf8'), headers['transfer-encoding'] !== undefined)
  const setCookie = headers['set-cookie']
  const location = headers.location
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    text,
    json: () => JSON.parse(text),
    location: typeof location === 'string' ? location : undefined,
    setCookies: setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
  }
}

function dechunk (text: string, chunked: boolean): string {
  if (!chunked) return text
  let out = ''
  let rest = text
  while (rest.length > 0) {
    const lineEnd = rest.indexOf('\r\n')
    const size = parseInt(rest.slice(0, lineEnd), 16)
    if (!(size > 0)) break
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size)
    rest = rest.slice(lineEnd + 2 + size + 2)
  }
  return out
}
