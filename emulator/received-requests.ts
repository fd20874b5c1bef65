// What reached /api/, as it arrived: the last requests' method, path with query and every
// header, so a test can prove what a client sent upstream (a BFF that must never pass browser
// cookies on, or must pass If-None-Match through) without a proxy in between.
import type { IncomingMessage } from 'node:http'

const receivedLimit = 200

export interface ReceivedRequest {
  method: string
  /** Path and query string, as on the request line. */
  path: string
  /** Header names lower-cased; repeated headers as Node merges them (set-cookie as a list). */
  headers: Record<string, string | string[]>
  /** Every header line in order, with its name as sent. */
  rawHeaders: Array<[string, string]>
  /** Milliseconds since the epoch. */
  receivedAt: number
}

export interface ReceivedLog {
  record: (req: IncomingMessage) => void
  /** Oldest first; copies, so a caller cannot change the log. */
  list: () => ReceivedRequest[]
  clear: () => void
}

export function createReceivedLog (): ReceivedLog {
  let requests: ReceivedRequest[] = []
  return {
    record (req) {
      const headers: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = value
      const rawHeaders: Array<[string, string]> = []
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) rawHeaders.push([req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string])
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers, rawHeaders, receivedAt: Date.now() })
      if (requests.length > receivedLimit) requests = requests.slice(-receivedLimit)
    },
    list: () => structuredClone(requests),
    clear () { requests = [] }
  }
}
