// The live channel's events (GET /events, Server-Sent Events), declared once: each event's name,
// the JSON of its data as the page reads it, whether it carries an id, and, for the kinds
// announced between instances on the bus (src/events/event-bus.ts), what one message of it
// carries there. From this table follow the check of every message read from the bus
// (src/events/live-events.ts), the events in the OpenAPI description (routes/event-schemas.ts),
// and the browser module's types of their data (public/client/contract.ts, `npm run generate`),
// which its live channel reads them with (public/client/live-events.ts).
import { Type, type Static, type TSchema } from 'typebox'
import { StoredFile } from './media.js'

/** Why a session ended, as its open pages are told: signed out, timed out, ended from elsewhere, replaced by a new sign-in in the same browser. */
export const SESSION_END_REASONS = ['signed_out', 'expired', 'ended', 'replaced'] as const
export type SessionEndReason = typeof SESSION_END_REASONS[number]

/** Why media-bff closed a channel that lives on: other tabs of the session or the person took its place, or the instance was full as it opened. */
export const CLOSED_REASONS = ['session_limit', 'person_limit', 'instance_full'] as const
export type ClosedReason = typeof CLOSED_REASONS[number]

/** Files one message carries at most: a larger finish is for the page's own listing to show. */
export const MAX_FILES_PER_MESSAGE = 100

export const LiveReady = Type.Object({
  heartbeat_ms: Type.Integer({ description: 'How often a comment line comes: a page that hears nothing for several is no longer connected' })
}, { title: 'LiveReady', description: 'The data of `ready`, the first event of every channel' })

export const LiveFile = Type.Object({
  ...StoredFile.properties,
  event: Type.String({ description: '`finished` (an upload was finished), or the service\'s webhook event that told of it (`file_transcode`, ...)' })
}, { title: 'LiveFile', description: 'The data of `file`: one file of this person\'s, as the service describes it now (StoredFile\'s fields), and what told of it' })

export const LiveSessionEnded = Type.Object({
  ended: Type.Literal(true),
  reason: Type.Enum(SESSION_END_REASONS, { description: '`signed_out`, `expired`, `ended` (from another device, by an operator or by the service), or `replaced` by a new sign-in in the same browser, whose pages reconnect with the new cookie' })
}, { title: 'LiveSessionEnded', description: 'The data of `session`: the session ended' })

export const LiveResync = Type.Object({}, { additionalProperties: false, title: 'LiveResync', description: 'The data of `resync`: nothing' })

export const LiveClosed = Type.Object({
  reason: Type.Enum(CLOSED_REASONS, { description: '`session_limit` or `person_limit`: a newer tab took this one\'s place; `instance_full`: the instance had no room as the channel opened' })
}, { title: 'LiveClosed', description: 'The data of `closed`: media-bff closed this channel' })

/**
 * What a message of a kind announced on the bus carries, read back from the bus as untrusted
 * JSON: a message that is not its kind's shape is dropped where it is read.
 */
const FileMessage = Type.Object({
  event: Type.String(),
  files: Type.Array(StoredFile, { maxItems: MAX_FILES_PER_MESSAGE })
})
// Any reason: a replica of a later version may tell of one this one does not know, and the
// session must end on every instance all the same.
const SessionMessage = Type.Object({ ended: Type.Literal(true), reason: Type.String() })

/** Which of its events carry an id (what Last-Event-ID names when the page reconnects). */
export type IdRule = 'always' | 'sometimes' | 'never'

export interface LiveEventDeclaration {
  /** The JSON of each event's `data`, as the page reads it: a named schema of the contract. */
  data: TSchema
  id: IdRule
  description: string
  /** For a kind announced on the bus: what one message of it carries there. */
  message?: TSchema
}

/** Every event of the live channel, in the order a page may first meet them. */
export const LIVE_CHANNEL = {
  ready: { data: LiveReady, id: 'always', description: 'The first event of every channel, after the `retry` field (how long to wait before reconnecting); its id is a point to resume from' },
  file: { data: LiveFile, id: 'sometimes', description: 'A file of this person\'s, as the service describes it now: one event per file of a finish or a webhook, the message\'s id on the last', message: FileMessage },
  session: { data: LiveSessionEnded, id: 'sometimes', description: 'The session ended; the channel closes after it', message: SessionMessage },
  resync: { data: LiveResync, id: 'never', description: 'The page was away too long (or gave an id of another deployment) to be sent what it missed: it reads its state again' },
  closed: { data: LiveClosed, id: 'never', description: 'media-bff closed the channel: the session\'s or the person\'s other channels took its place, or the instance was full as it opened' }
} as const satisfies Record<string, LiveEventDeclaration>

/** The kinds announced on the bus: those with a message. */
export type AnnouncedEvent = { [K in keyof typeof LIVE_CHANNEL]: typeof LIVE_CHANNEL[K] extends { message: TSchema } ? K : never }[keyof typeof LIVE_CHANNEL]

/** Each event's data, by its name, as the server writes it. */
export type LiveEventData = { [K in keyof typeof LIVE_CHANNEL]: Static<typeof LIVE_CHANNEL[K]['data']> }
