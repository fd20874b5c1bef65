// The live channel's events (GET /events) as the OpenAPI description shows them: a
// text/event-stream whose messages are each one of these, `data` one line of JSON. Each is an
// entry of the channel's one declaration (src/contract/live-events.ts), its data a named schema of
// the contract. Between events come comment lines (`: keep-alive`) every EVENTS_HEARTBEAT.
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import { LIVE_CHANNEL, type IdRule } from '../src/contract/live-events.js'

const EventId = Type.String({ pattern: '^[\\w.-]{1,64}$', description: 'The event\'s id: what Last-Event-ID names when the page reconnects' })

/** One Server-Sent Event: its name, its id (`always`, on some of them, or `never`), its JSON data. */
function event (name: string, id: IdRule, description: string, data: TSchema): TSchema {
  return Type.Object({
    event: Type.Literal(name),
    ...(id === 'always' ? { id: EventId } : id === 'sometimes' ? { id: Type.Optional(EventId) } : {}),
    data: Type.String({ contentMediaType: 'application/json', contentSchema: data })
  }, { title: name, description })
}

export const LiveEventStream = Type.Union(
  Object.entries(LIVE_CHANNEL).map(([name, declared]) => event(name, declared.id, declared.description, declared.data)),
  { description: 'Each message of the stream is one of these events' }
)
