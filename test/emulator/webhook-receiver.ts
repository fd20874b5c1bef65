// A webhook receiver for the emulator's tests: a small real HTTP server that keeps every
// delivery it gets and answers each with the next status of its script (the last one repeats),
// or never answers at all. Its checks of a signature are written here from the service's
// documentation, not taken from the emulator, so a wrong signature cannot pass both.
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pollUntil } from './poll.js'

export interface Delivery {
  headers: IncomingHttpHeaders
  path: string
  body: any
}

export interface Receiver {
  url: string
  deliveries: Delivery[]
  /** Waits until `count` deliveries have arrived (those matching `which`, if given). */
  waitFor: (count: number, which?: (delivery: Delivery) => boolean) => Promise<Delivery[]>
}

interface Teardown { teardown: (fn: () => Promise<void> | void) => void }

/** `answers`: the statuses to answer in turn, the last repeated; 'silent' answers nothing. */
export async function startReceiver (t: Teardown, answers: number[] | 'silent' = [200]): Promise<Receiver> {
  const deliveries: Delivery[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => { chunks.push(chunk) })
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown = text
      try { body = JSON.parse(text) } catch {}
      deliveries.push({ headers: request.headers, path: request.url ?? '', body })
      if (answers === 'silent') return
      response.writeHead(answers[Math.min(deliveries.length, answers.length) - 1] ?? 200, { 'content-type': 'text/plain' }).end('thanks')
    })
  })
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve) })
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => { server.close(resolve) })
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/media`
  return {
    url,
    deliveries,
    waitFor: async (count, which = () => true) => await pollUntil(`${count} deliveries at ${url}`, () => deliveries.filter(which), (seen) => seen.length >= count)
  }
}

/** The signature the service's documentation describes: HMAC-SHA256 of timestamp + token, in hex. */
export function expectedSignature (key: string, timestamp: string, token: string): string {
  return createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex')
}

export function signedWith (key: string, body: any): boolean {
  const { timestamp, token, signature } = body.signature
  return signature === expectedSignature(key, timestamp, token)
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
