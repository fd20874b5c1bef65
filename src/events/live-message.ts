// What travels between instances for the live channel (GET /events): an event for some sessions,
// by their handles (src/sessions/session-index.ts). Read back from the bus as untrusted JSON.
// The kinds of event, and what the data of each must look like, are LIVE_EVENTS
// (live-events.ts), from the channel's declaration (src/contract/live-events.ts).
import { randomBytes } from 'node:crypto'
import { jsonRecord } from '../media/json-record.js'
import { LIVE_EVENTS, type LiveEventName } from './live-events.js'

export { SESSION_END_REASONS, type SessionEndReason } from '../contract/live-events.js'

export interface LiveMessage {
  /** Ordered by time, unique: the SSE id, and what Last-Event-ID names on a reconnect. */
  id: string
  event: LiveEventName
  /** The sessions it is for. */
  handles: string[]
  /**
   * `file`: `{ event, files }`, the files (as the service describes them now) of one finish or one
   * webhook, each written to the channel as a `file` event; `session`: `{ ended, reason }`.
   */
  data: Record<string, unknown>
}

/** A time-ordered id: milliseconds, a counter within them, and randomness against other instances. */
let lastMs = 0
let counter = 0
export function newMessageId (now = Date.now()): string {
  counter = now === lastMs ? counter + 1 : 0
  lastMs = now
  return `${now.toString(36).padStart(9, '0')}.${counter.toString(36).padStart(3, '0')}.${randomBytes(6).toString('base64url')}`
}

export function readLiveMessage (text: string): LiveMessage | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const record = jsonRecord(value)
  const data = jsonRecord(record?.data)
  if (record === undefined || data === undefined || typeof record.id !== 'string' || !/^[\w.-]{1,64}$/.test(record.id)) return undefined
  const event = record.event
  if (typeof event !== 'string' || !Object.hasOwn(LIVE_EVENTS, event) || !LIVE_EVENTS[event as LiveEventName](data)) return undefined
  if (!Array.isArray(record.handles) || !record.handles.every((handle) => typeof handle === 'string')) return undefined
  return { id: record.id, event: event as LiveEventName, handles: record.handles as string[], data }
}
