// The kinds of live event (GET /events), and what the data of each must look like: a message of
// another kind, or with other data, is dropped as it is read from the bus (live-message.ts). A
// new kind is an entry here and the code that raises it (a publish on the bus,
// plugins/live-updates.ts); the hub writes any kind to the page as it is (src/events/
// stream-hub.ts: `file` and `session` alone have more to them).
import { jsonRecord } from '../media/json-record.js'

/** Files one message carries at most: a larger finish is for the page's own listing to show. */
export const MAX_FILES_PER_MESSAGE = 100

/** Each kind of live event, and whether a message's data is one of it. */
export const LIVE_EVENTS = {
  /** `{ event, files }`: files of one finish or one webhook, as the service describes them now. */
  file: (data: Record<string, unknown>) => typeof data.event === 'string' && Array.isArray(data.files) && data.files.length <= MAX_FILES_PER_MESSAGE && data.files.every((file) => jsonRecord(file) !== undefined),
  /** `{ ended: true, reason }`: the session ended; its channels close. */
  session: (data: Record<string, unknown>) => data.ended === true && typeof data.reason === 'string'
} satisfies Record<string, (data: Record<string, unknown>) => boolean>

export type LiveEventName = keyof typeof LIVE_EVENTS
