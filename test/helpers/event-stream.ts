// A page's live channel (GET /events) read over real HTTP with a test browser's cookies: the
// events as the browser module's reader (public/client/sse.ts) parses them.
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { sseReader, type ServerSentEvent } from '../../public/client/sse.js'
import type { Browser } from './http-client.js'

export interface OpenChannel {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The error body when the channel was refused. */
  refusal: any
  events: ServerSentEvent[]
  /** Events of one kind, their data parsed. */
  data: (event: string) => any[]
  lastEventId: () => string
  /** Resolves once `count` events of this kind have come (rejects after `timeoutMs`). */
  waitFor: (event: string, count?: number, timeoutMs?: number) => Promise<any[]>
  /** Resolves when the server ends the channel. */
  ended: Promise<void>
  isOpen: () => boolean
  close: () => void
}

export async function openChannel (browser: Browser, headers: Record<string, string> = {}): Promise<OpenChannel> {
  const cookie = browser.cookieHeader()
  const response = await request(`${browser.baseUrl}/events`, {
    // As the browser module reads it: fetch() streaming, with X-CSRF like every other call.
    headers: { ...browser.defaultHeaders, accept: 'text/event-stream', 'x-csrf': '1', ...(cookie === undefined ? {} : { cookie }), ...headers }
  })
  const events: ServerSentEvent[] = []
  const reader = sseReader((event) => events.push(event))
  let open = response.statusCode === 200
  let refusal: any
  const ended = new Promise<void>((resolve) => {
    response.body.on('close', () => {
      open = false
      resolve()
    })
    response.body.on('error', () => {})
  })
  if (response.statusCode === 200) {
    const decoder = new TextDecoder()
    response.body.on('data', (chunk: Buffer) => { reader.push(decoder.decode(chunk, { stream: true })) })
    // The channel is open once its first event (ready) came; one closed before that has none.
    const isOpen = (): boolean => open
    while (isOpen() && events.length === 0) await sleep(5)
  } else {
    refusal = JSON.parse(await response.body.text())
  }
  const data = (event: string): any[] => events.filter((e) => e.event === event).map((e) => JSON.parse(e.data))
  return {
    status: response.statusCode,
    headers: response.headers,
    refusal,
    events,
    data,
    lastEventId: () => reader.lastEventId,
    waitFor: async (event, count = 1, timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs
      while (data(event).length < count) {
        if (Date.now() > until) throw new Error(`no ${count} ${event} event(s) within ${timeoutMs} ms; got ${JSON.stringify(events)}`)
        await sleep(10)
      }
      return data(event)
    },
    ended,
    isOpen: () => open,
    close: () => { response.body.destroy() }
  }
}
