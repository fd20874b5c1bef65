// The session's live channel (GET /events, Server-Sent Events) as typed events. Read with fetch
// rather than EventSource: EventSource cannot send X-CSRF, which media-bff asks of every call, and
// gives up for good on any answer but 200 without saying which (a 401 of an ended session, a 503
// of an instance shutting down); this sends the header, sees the answer,
// waits what Retry-After says, resumes with Last-Event-ID after every reconnect, and notices a
// connection that died without a word (no heartbeat for a while). The events and their data are
// the contract's (LiveEventData, written from src/contract/live-events.ts), read as untrusted:
// each field is checked before it is used.
import { bffError, MediaBffError } from './errors.js'
import { CSRF_HEADER, type CallSettings } from './http.js'
import { parseJson } from './json.js'
import { sseReader, type ServerSentEvent } from './sse.js'
import type { LiveClosed, LiveEventData, LiveSessionEnded, MediaFile } from './types.js'
import { routeUrl } from './urls.js'
import { listenerRegistry } from './listeners.js'

/** Why the session ended, as `ended` tells it: a reason this module does not know is `ended`; `replaced` (a new sign-in in this browser) reconnects instead. */
export type SessionEndReason = Exclude<LiveSessionEnded['reason'], 'replaced'>

/** What a live channel announces, by event name. */
export interface LiveEvents {
  /** Connected; `reconnected` after the first time. */
  open: { reconnected: boolean }
  /**
   * One of this person's uploads, as the media service describes it now, after `event` (the
   * service's webhook: file_upload, file_transcode, ...). `file.status` is `ready` once it can
   * be played and shared. Text fields are the service's: show them with textContent.
   */
  file: { file: MediaFile, event: string }
  /** The session ended; the channel is closed (the session watch hears of it too). */
  ended: { reason: SessionEndReason }
  /** The page was away too long to be told what it missed: read what it shows again. */
  resync: Record<string, never>
  /**
   * More tabs of this session (`session_limit`), or of this person in all their browsers
   * (`person_limit`), are open than get live updates, and this one gave its place to a newer one:
   * it connects again once it is shown (a tab in view: after a while).
   */
  paused: { reason: Exclude<LiveClosed['reason'], 'instance_full'> }
  /** The connection failed; another attempt comes in `retryInMs`, or none (undefined). */
  error: { error: MediaBffError, retryInMs: number | undefined }
}

export type LiveListener<K extends keyof LiveEvents> = (event: LiveEvents[K]) => void

export interface LiveChannel {
  readonly state: 'connecting' | 'open' | 'closed'
  on: <K extends keyof LiveEvents>(type: K, listener: LiveListener<K>) => () => void
  close: () => void
}

/** After a sign-in in this browser replaced the session: time for its cookie to arrive. */
const REPLACED_DELAY_MS = 1_500
const MAX_DELAY_MS = 30_000
/** A tab that gave its place to a newer one, still in view: it takes one back after this. */
const PAUSED_IN_VIEW_MS = 60_000
/** Silence for this many heartbeats means the connection is gone. */
const HEARTBEATS_OF_SILENCE = 3
const DEFAULT_RETRY_MS = 2_000

export function openLiveChannel (settings: CallSettings): LiveChannel {
  const { on, emit } = listenerRegistry<LiveEvents>()
  let state: LiveChannel['state'] = 'connecting'
  let lastEventId = ''
  let retryMs = DEFAULT_RETRY_MS
  let failures = 0
  let connections = 0
  let controller: AbortController | undefined
  let body: ReadableStreamDefaultReader<Uint8Array> | undefined
  let watchdog: ReturnType<typeof setTimeout> | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let whenShown: (() => void) | undefined

  const stopWaitingToBeShown = (): void => {
    if (whenShown !== undefined) document.removeEventListener('visibilitychange', whenShown)
    whenShown = undefined
  }
  /** Pages out of view wait to be looked at again; one in view (or no document: Node) waits a while. */
  const resumeWhenShown = (): void => {
    if (typeof document === 'undefined' || document.visibilityState !== 'hidden') {
      again(undefined, PAUSED_IN_VIEW_MS)
      return
    }
    hangUp()
    state = 'connecting'
    whenShown = () => {
      if (document.visibilityState === 'hidden') return
      stopWaitingToBeShown()
      if (state !== 'closed') connect().catch(() => {})
    }
    document.addEventListener('visibilitychange', whenShown)
  }

  /** Lets the current connection go: its reader, its request, its silence timer. */
  const hangUp = (): void => {
    clearTimeout(watchdog)
    body?.cancel().catch(() => {})
    body = undefined
    controller?.abort()
  }
  const stop = (): void => {
    state = 'closed'
    clearTimeout(timer)
    stopWaitingToBeShown()
    hangUp()
  }
  /** Tries again after `ms` (or a growing wait after failures), unless closed meanwhile. */
  const again = (error: MediaBffError | undefined, ms?: number): void => {
    if (state === 'closed') return
    hangUp()
    state = 'connecting'
    const wait = ms ?? Math.min(MAX_DELAY_MS, retryMs * 2 ** Math.min(failures, 5)) * (0.8 + Math.random() * 0.4)
    if (error !== undefined) emit('error', { error, retryInMs: wait })
    clearTimeout(timer)
    timer = setTimeout(() => { connect().catch(() => {}) }, wait)
  }
  const give = (event: ServerSentEvent, resetWatchdog: (heartbeatMs?: number) => void): void => {
    // Only an event that arrived whole counts as seen: a reconnect resumes after it.
    lastEventId = event.lastEventId
    const ready = dataOf(event, 'ready')
    const file = dataOf(event, 'file')
    const ended = dataOf(event, 'session')
    const closed = dataOf(event, 'closed')
    if (ready !== undefined) {
      failures = 0
      state = 'open'
      resetWatchdog(typeof ready.heartbeat_ms === 'number' ? ready.heartbeat_ms : undefined)
      emit('open', { reconnected: connections++ > 0 })
    } else if (file !== undefined) {
      const { event: cause, ...fields } = file
      emit('file', { file: fields as MediaFile, event: typeof cause === 'string' ? cause : '' })
    } else if (ended?.ended === true) {
      if (ended.reason === 'replaced') {
        again(undefined, REPLACED_DELAY_MS)
        return
      }
      const reason: SessionEndReason = ended.reason === 'signed_out' || ended.reason === 'expired' ? ended.reason : 'ended'
      stop()
      emit('ended', { reason })
      settings.onSignInLost?.(new MediaBffError(401, 'login_required', 'Your session has ended; please sign in again.', { login_url: routeUrl(settings.root, '/auth/login'), reason }, settings.root))
    } else if (event.event === 'resync') {
      emit('resync', {})
    } else if (closed?.reason === 'session_limit' || closed?.reason === 'person_limit') {
      resumeWhenShown()
      emit('paused', { reason: closed.reason })
    }
  }

  async function connect (): Promise<void> {
    const attempt = new AbortController()
    controller = attempt
    const resetWatchdog = (heartbeatMs?: number): void => {
      if (heartbeatMs !== undefined) silenceMs = heartbeatMs * HEARTBEATS_OF_SILENCE
      clearTimeout(watchdog)
      if (silenceMs !== undefined && !attempt.signal.aborted) watchdog = setTimeout(() => { again(networkError('media-bff\'s live channel went silent.')) }, silenceMs)
    }
    let silenceMs: number | undefined
    try {
      const response = await fetch(routeUrl(settings.root, '/events'), {
        credentials: 'include',
        headers: { accept: 'text/event-stream', ...CSRF_HEADER, ...(lastEventId === '' ? {} : { 'last-event-id': lastEventId }) },
        signal: attempt.signal
      })
      if (!response.ok || response.body === null) {
        await refused(response)
        return
      }
      const reader = sseReader((event) => { give(event, resetWatchdog) }, lastEventId)
      const decoder = new TextDecoder()
      const reading = response.body.getReader()
      body = reading
      for (;;) {
        const { done, value } = await reading.read()
        if (done) break
        reader.push(decoder.decode(value, { stream: true }))
        retryMs = reader.retryMs ?? retryMs
        resetWatchdog()
      }
      // The instance closed it (shutting down, or this reader was too slow): come back.
      if (!attempt.signal.aborted) again(undefined, retryMs)
    } catch (error) {
      if (attempt.signal.aborted) return
      failures++
      again(networkError(String(error)))
    }
  }

  /** An answer other than the stream: wait and retry, or stop for good. */
  async function refused (response: Response): Promise<void> {
    const retryAfter = /^\d{1,5}$/.test(response.headers.get('retry-after') ?? '') ? Number(response.headers.get('retry-after')) : undefined
    const body = parseJson(await response.text().catch(() => ''))
    const error = bffError(response.status, body, settings.root, retryAfter)
    failures++
    if (response.status === 429 || response.status >= 500) {
      again(error, retryAfter === undefined ? undefined : retryAfter * 1000)
      return
    }
    stop()
    emit('error', { error, retryInMs: undefined })
    if (error.needsSignIn) settings.onSignInLost?.(error)
  }

  connect().catch(() => {})
  return {
    get state () { return state },
    on,
    close: stop
  }
}

/** The fields the contract declares for a data of this event, each still to be checked; undefined for another event, or data that is no JSON object. */
type Unchecked<T> = { [K in keyof T]?: unknown }

/** The event's data when it is the event named (`ready` for `ready`, ...): a name or field the contract lacks does not compile. */
function dataOf<K extends keyof LiveEventData> (event: ServerSentEvent, name: K): Unchecked<LiveEventData[K]> | undefined {
  return event.event === name ? parseJson(event.data) as Unchecked<LiveEventData[K]> | undefined : undefined
}

function networkError (cause: string): MediaBffError {
  return new MediaBffError(0, 'network_error', 'The live channel to media-bff was lost; reconnecting.', { cause })
}
