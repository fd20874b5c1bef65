// The live channel's events (GET /events) as the OpenAPI description shows them: a
// text/event-stream whose messages are each one of these, `data` one line of JSON. The channel
// itself writes `ready`, `resync` and `closed` (src/events/stream-hub.ts); the kinds announced on
// the bus are those of src/events/live-events.ts, each of which must have its shape here. Between
// events come comment lines (`: keep-alive`) every EVENTS_HEARTBEAT.
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import type { LiveEventName } from '../src/events/live-events.js'
import { SESSION_END_REASONS } from '../src/events/live-message.js'
import type { DropReason } from '../src/events/stream-hub.js'
import { StoredFile } from './schemas.js'

const EventId = Type.String({ pattern: '^[\\w.-]{1,64}$', description: 'The event\'s id: what Last-Event-ID names when the page reconnects' })

/** One Server-Sent Event: its name, its id (`always`, on some of them, or `never`), its JSON data. */
function event (name: string, id: 'always' | 'sometimes' | 'never', description: string, data: TSchema): TSchema {
  return Type.Object({
    event: Type.Literal(name),
    ...(id === 'always' ? { id: EventId } : id === 'sometimes' ? { id: Type.Optional(EventId) } : {}),
    data: Type.String({ contentMediaType: 'application/json', contentSchema: data })
  }, { title: name, description })
}

const oneOf = (values: readonly string[]): TSchema => Type.String({ enum: [...values] })

const CLOSED_REASONS = ['session_limit', 'person_limit'] as const satisfies readonly DropReason[]

/** The kinds announced on the bus, one shape each. */
const ANNOUNCED = {
  file: event('file', 'sometimes', 'A file of this person\'s, as the service describes it now: one event per file of a finish or a webhook, the message\'s id on the last', Type.Intersect([StoredFile, Type.Object({
    event: Type.String({ description: '`finished` (an upload was finished), or the service\'s webhook event that told of it (`file_transcode`, ...)' })
  })])),
  session: event('session', 'sometimes', 'The session ended; the channel closes after it', Type.Object({
    ended: Type.Literal(true),
    reason: oneOf(SESSION_END_REASONS)
  }))
} satisfies Record<LiveEventName, TSchema>

export const LiveEventStream = Type.Union([
  event('ready', 'always', 'The first event of every channel, after the `retry` field (how long to wait before reconnecting); its id is a point to resume from', Type.Object({
    heartbeat_ms: Type.Integer({ description: 'How often a comment line comes: a page that hears nothing for several is no longer connected' })
  })),
  ...Object.values(ANNOUNCED),
  event('resync', 'never', 'The page was away too long (or gave an id of another deployment) to be sent what it missed: it reads its state again', Type.Object({})),
  event('closed', 'never', 'The session\'s or the person\'s other channels took this one\'s place; the channel closes after it', Type.Object({ reason: oneOf(CLOSED_REASONS) }))
], { description: 'Each message of the stream is one of these events' })
