// The kinds of live event announced on the bus (GET /events), and whether a message's data is
// one of them: a message of another kind, or with other data, is dropped as it is read from the
// bus (live-message.ts). Both follow from the one declaration of the channel's events,
// src/contract/live-events.ts: a new kind is an entry there and the code that raises it (a
// publish on the bus, plugins/live-updates.ts); the hub writes any kind to the page as it is
// (src/events/stream-hub.ts: `file` and `session` alone have more to them).
import { Compile } from 'typebox/compile'
import { LIVE_CHANNEL, type AnnouncedEvent } from '../contract/live-events.js'

export { MAX_FILES_PER_MESSAGE } from '../contract/live-events.js'

export type LiveEventName = AnnouncedEvent

/** Each kind announced on the bus, and whether a message's data is one of it (its declared message, compiled). */
export const LIVE_EVENTS = Object.fromEntries(Object.entries(LIVE_CHANNEL).flatMap(([name, declared]) => {
  if (!('message' in declared)) return []
  const validator = Compile(declared.message)
  return [[name, (data: Record<string, unknown>): boolean => validator.Check(data)]]
})) as Readonly<Record<LiveEventName, (data: Record<string, unknown>) => boolean>>
