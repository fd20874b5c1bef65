// Reading a text/event-stream as the HTML standard defines it: lines end in CRLF, LF or CR (also
// across chunks), a blank line ends an event, `data` lines join with LF, lines starting with ':'
// are comments (heartbeats), unknown fields are ignored, and `id` and `retry` are remembered.
// The last id outlives a connection: a new reader starts from the one before it.

export interface ServerSentEvent {
  event: string
  data: string
  /** The last id the stream named (this event's, or an earlier one's). */
  lastEventId: string
}

export interface SseReader {
  /** Reads the next piece of the stream; complete events go to onEvent as they end. */
  push: (text: string) => void
  readonly lastEventId: string
  /** The reconnection delay the stream asked for, when it did. */
  readonly retryMs: number | undefined
}

export function sseReader (onEvent: (event: ServerSentEvent) => void, lastEventId = ''): SseReader {
  let pending = ''
  let skipLineFeed = false
  let event = ''
  let data: string[] = []
  let retryMs: number | undefined

  const line = (text: string): void => {
    if (text === '') {
      if (data.length > 0) onEvent({ event: event === '' ? 'message' : event, data: data.join('\n'), lastEventId })
      event = ''
      data = []
      return
    }
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon < 0 ? text : text.slice(0, colon)
    let value = colon < 0 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') event = value
    else if (field === 'data') data.push(value)
    else if (field === 'id' && !value.includes('\0')) lastEventId = value
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value)
  }

  return {
    push (text) {
      for (const char of text) {
        if (skipLineFeed) {
          skipLineFeed = false
          if (char === '\n') continue
        }
        if (char === '\r' || char === '\n') {
          skipLineFeed = char === '\r'
          line(pending)
          pending = ''
        } else {
          pending += char
        }
      }
    },
    get lastEventId () { return lastEventId },
    get retryMs () { return retryMs }
  }
}
