// The live channels open on this instance (GET /events, Server-Sent Events): each belongs to a
// session, by its handle. Messages from the bus go to the channels of the sessions they name; a
// session's end closes its channels, here and, through the bus, on every instance. Bounded:
// channels per instance, per session (one per tab; beyond, the oldest goes) and per person (all
// their sessions together; beyond, their oldest goes), and bytes queued per channel: a reader
// that stops reading is dropped, not buffered without end. Recent messages
// are kept a short while, so a page that reconnects (Last-Event-ID) misses nothing; one that was
// away longer is told to read its state again ('resync'). Every channel's first event ('ready')
// carries an id too, so even a page that has heard nothing yet has a point to resume from.
import type { ServerResponse } from 'node:http'
import { newMessageId, type LiveMessage } from './live-message.js'
import type { ClosedReason, LiveEventData } from '../contract/live-events.js'
import { flattened } from '../flat-string.js'
import { ATTR, recordedContext, startSpan, type Span, type SpanContext } from '../tracing/spans.js'

export interface StreamOwner {
  /** The session's handle. */
  handle: string
  /** Whose session it is (the session's handle when the person is not known). */
  person: string
  /** When the session ends unless it is used meanwhile (idle or absolute timeout). */
  endsAt: number
  /** Asked once that time has passed: the session's new end, or undefined when it is over. */
  stillLive: () => Promise<number | undefined>
  /**
   * When the channel's credential runs out though the session lives on (a device-bound session's
   * short-lived cookie): the channel then just closes, and the page comes back with a new one.
   */
  credentialEndsAt?: number
}

/** Why media-bff let a channel go: those the page is told of (a `closed` event) and the rest. */
export type DropReason = 'slow_reader' | 'session_ended' | ClosedReason
/** Why a channel closed, on its span `live channel close`. */
type CloseReason = DropReason | 'expired' | 'client_gone' | 'shutdown' | 'credential_expired'

export interface StreamHubOptions {
  maxStreams: number
  maxPerSession: number
  maxPerPerson: number
  /** Bytes a channel may have waiting for its reader before it is dropped. */
  maxQueuedBytes: number
  heartbeatMs: number
  replayWindowMs: number
  replayMax: number
  /** How long the browser waits before reconnecting (the SSE `retry` field). */
  retryMs: number
  onDelivered?: () => void
  onDropped?: (reason: DropReason) => void
  /** How many channels are open now, after each opens or closes. */
  onCount?: (count: number) => void
  /** The clock sessions end by. */
  now?: () => number
}

interface Stream {
  owner: StreamOwner
  res: ServerResponse
  checking: boolean
  openedAt: number
  /** Its span `live channel open`, when that was recorded: the close links to it. */
  opened: SpanContext | undefined
}

export function createStreamHub (options: StreamHubOptions) {
  const clock = options.now ?? Date.now
  const streams = new Set<Stream>()
  const bySession = new Map<string, Stream[]>()
  const byPerson = new Map<string, Stream[]>()
  const recent: Array<{ message: LiveMessage, at: number }> = []
  /**
   * Every message after this id is still in `recent`: the newest one let go, or this instance's
   * start (what came before it, this instance never saw).
   */
  let completeAfter = newMessageId()

  const forget = (stream: Stream, reason: CloseReason): void => {
    if (!streams.delete(stream)) return
    options.onCount?.(streams.size)
    without(bySession, stream.owner.handle, stream)
    without(byPerson, stream.owner.person, stream)
    startSpan('live channel close', { [ATTR.outcome]: reason, [ATTR.openSeconds]: (clock() - stream.openedAt) / 1000 }, stream.opened === undefined ? [] : [stream.opened]).end()
  }
  const drop = (stream: Stream, reason: DropReason): void => {
    forget(stream, reason)
    options.onDropped?.(reason)
    stream.res.destroy()
  }
  /**
   * What is still queued from earlier writes decides, not this one: a reader that keeps up has
   * nothing left by the next event, one that stopped reading keeps more and more.
   */
  const write = (stream: Stream, text: string): void => {
    if (stream.res.destroyed) {
      forget(stream, 'client_gone')
      return
    }
    if (stream.res.writableLength > options.maxQueuedBytes) {
      drop(stream, 'slow_reader')
      return
    }
    stream.res.write(text)
  }
  /** Tells the page why (`last`: its session is over, or other tabs took its place), then closes the channel. */
  const end = (stream: Stream, last: string, reason: CloseReason): void => {
    write(stream, last)
    forget(stream, reason)
    stream.res.end()
  }

  const heartbeat = setInterval(() => {
    const now = clock()
    for (const stream of [...streams]) {
      // A comment line: proxies and browsers see traffic, the page sees no event.
      write(stream, ': keep-alive\n\n')
      const { credentialEndsAt } = stream.owner
      if (credentialEndsAt !== undefined && now >= credentialEndsAt) {
        forget(stream, 'credential_expired')
        stream.res.end()
        continue
      }
      if (now < stream.owner.endsAt || stream.checking) continue
      stream.checking = true
      stream.owner.stillLive().then((endsAt) => {
        stream.checking = false
        if (endsAt === undefined) end(stream, ownEvent('session', { ended: true, reason: 'expired' }), 'expired')
        else stream.owner.endsAt = endsAt
      }, () => { stream.checking = false })
    }
  }, options.heartbeatMs)
  heartbeat.unref()

  return {
    get size (): number { return streams.size },

    /** Messages kept for pages that reconnect (at most replayMax, for replayWindowMs). */
    get replayable (): number { return recent.length },

    /** Whether one more channel may open: asked before its answer starts. */
    hasRoom (): boolean { return streams.size < options.maxStreams },

    /**
     * Opens a channel on `res`; false when this instance holds all it may (the answer is then
     * ended, its page told to come back later), or when the page has already gone (it left while
     * its request was being checked): nothing is kept then.
     */
    open (res: ServerResponse, owner: StreamOwner, lastEventId: string | undefined): boolean {
      const span = startSpan('live channel open', { [ATTR.outcome]: 'opened' })
      try {
        return openIn(span, res, owner, lastEventId)
      } finally {
        span.end()
      }
    },

    deliver (message: LiveMessage): void {
      const now = clock()
      recent.push({ message, at: now })
      while (recent.length > options.replayMax || (recent[0] !== undefined && now - recent[0].at > options.replayWindowMs)) {
        const gone = recent.shift()
        if (gone !== undefined && gone.message.id > completeAfter) completeAfter = gone.message.id
      }
      for (const handle of message.handles) {
        for (const stream of bySession.get(handle) ?? []) {
          if (message.event === 'session' && message.data.ended === true) {
            end(stream, format({ id: undefined, event: 'session', data: message.data }), 'session_ended')
            options.onDropped?.('session_ended')
          } else {
            write(stream, formatMessage(message))
            options.onDelivered?.()
          }
        }
      }
    },

    /** Shutting down: every channel closes, and its page reconnects to another instance. */
    closeAll (): void {
      clearInterval(heartbeat)
      for (const stream of [...streams]) {
        forget(stream, 'shutdown')
        stream.res.end()
      }
    }
  }

  function openIn (span: Span, res: ServerResponse, owner: StreamOwner, lastEventId: string | undefined): boolean {
    if (res.destroyed || res.writableEnded) {
      span.setAttribute(ATTR.outcome, 'refused')
      return false
    }
    if (streams.size >= options.maxStreams) {
      // Its answer has begun (a channel that found the instance full between its check and its
      // opening): never left open untracked, it says why and ends, and its page comes back.
      span.setAttribute(ATTR.outcome, 'refused')
      options.onDropped?.('instance_full')
      res.end(`retry: ${options.retryMs}\n${ownEvent('closed', { reason: 'instance_full' })}`)
      return false
    }
    const stream: Stream = { owner, res, checking: false, openedAt: clock(), opened: recordedContext(span) }
    // One per tab: a session (or a person) beyond its share lets its oldest channel go, and
    // tells that page why, so it waits to be looked at again rather than taking another tab's
    // place at once.
    makeRoom(bySession, owner.handle, options.maxPerSession, 'session_limit')
    makeRoom(byPerson, owner.person, options.maxPerPerson, 'person_limit')
    streams.add(stream)
    options.onCount?.(streams.size)
    bySession.set(owner.handle, [...(bySession.get(owner.handle) ?? []), stream])
    byPerson.set(owner.person, [...(byPerson.get(owner.person) ?? []), stream])
    res.once('close', () => { forget(stream, 'client_gone') })
    // How long to wait before reconnecting, and how often to expect a sign of life: a page
    // that hears nothing for several heartbeats knows its connection died without a word.
    write(stream, `retry: ${options.retryMs}\n${ownEvent('ready', { heartbeat_ms: options.heartbeatMs }, newMessageId())}`)
    keepHeadFlat(res)
    if (lastEventId !== undefined) replay(stream, lastEventId)
    return true
  }

  function makeRoom (index: Map<string, Stream[]>, key: string, max: number, reason: 'session_limit' | 'person_limit'): void {
    for (const oldest of (index.get(key) ?? []).slice(0, Math.max(0, (index.get(key)?.length ?? 0) - max + 1))) {
      end(oldest, ownEvent('closed', { reason }), reason)
      options.onDropped?.(reason)
    }
  }

  /**
   * What came after the page's last id: from its place in `recent` when it is there, else (a
   * 'ready' id, or a message of another instance's that this one let go) by time, the ids being
   * time-ordered, as long as nothing after it was let go here.
   */
  function replay (stream: Stream, lastEventId: string): void {
    const from = recent.findIndex((entry) => entry.message.id === lastEventId)
    if (from < 0 && !(TIME_ORDERED_ID.test(lastEventId) && lastEventId > completeAfter)) {
      // Too long away (or another deployment's id): what the page shows may be stale.
      write(stream, ownEvent('resync', {}))
      return
    }
    const missed = from < 0 ? recent.filter((entry) => entry.message.id > lastEventId) : recent.slice(from + 1)
    for (const { message } of missed) {
      if (message.handles.includes(stream.owner.handle)) write(stream, formatMessage(message))
    }
  }
}

export type StreamHub = ReturnType<typeof createStreamHub>

/**
 * Node keeps a response's head (`_header`) for as long as the response lives, as it was built: a
 * string of some seventy parts with media-bff's headers, 1.8 KB of a channel held open for hours.
 * Flat, it takes about a quarter of that.
 */
function keepHeadFlat (res: ServerResponse): void {
  const head = (res as { _header?: unknown })._header
  if (typeof head === 'string') flattened(head)
}

function without (index: Map<string, Stream[]>, key: string, stream: Stream): void {
  const list = (index.get(key) ?? []).filter((other) => other !== stream)
  if (list.length === 0) index.delete(key)
  else index.set(key, list)
}

/** What newMessageId makes: milliseconds and a counter, in fixed-width base 36, so text order is time order. */
const TIME_ORDERED_ID = /^[0-9a-z]{9}\.[0-9a-z]{3}\./

/**
 * A message as the page reads it: one `file` event per file (each the file's fields and the
 * event that told of it), the message's id on the last, so a page that reconnects resumes after
 * the whole message; any other message as one event.
 */
function formatMessage (message: LiveMessage): string {
  const { files, event } = message.data
  if (message.event !== 'file' || !Array.isArray(files)) return format(message)
  return files.map((file: Record<string, unknown>, i) => format({ id: i === files.length - 1 ? message.id : undefined, event: 'file', data: { ...file, event } })).join('')
}

/** One of the events the hub writes of its own accord, its data as the channel's declaration has it (src/contract/live-events.ts). */
function ownEvent<K extends keyof LiveEventData> (event: K, data: LiveEventData[K], id?: string): string {
  return format({ id, event, data })
}

/** One Server-Sent Event; the data is JSON on one line. */
function format ({ id, event, data }: { id: string | undefined, event: string, data: object }): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}
