// GET /events: the signed-in page's live channel, as Server-Sent Events
// (docs/reference/http-api.md, "Live updates"). Thin: who may open one is declared here (signed in
// with a live grant, from our own pages' origins, within the person's rate), the channel itself is
// app.live's (plugins/live-updates.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { LiveEventStream } from './event-schemas.js'
import { header, refusals } from './responses.js'

const EventHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ pattern: '^[\\w.-]{1,64}$', description: 'The id of the last event the page saw: what came after it is sent first' }))
})

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/events', {
    schema: {
      tags: ['events'],
      operationId: 'openLiveEvents',
      summary: 'The session\'s live channel, as Server-Sent Events: `ready`, then `file` (an upload of this person was finished or processed), `session` (it ended), `resync` and `closed`',
      description: 'For a signed-in session, with X-CSRF: 1 like every other call, from PUBLIC_URL\'s origin or one of ALLOWED_ORIGINS (403 otherwise): the browser module reads it with fetch() streaming, which sends the header (an EventSource cannot). Listening does not keep the session from its idle timeout.',
      headers: EventHeaders,
      response: {
        // Written by the channel itself (the reply is hijacked): described, never serialised.
        200: {
          description: 'The channel, held open until the session ends or the instance stops',
          headers: {
            'Cache-Control': header(Type.String({ const: 'no-store' }), true),
            'X-Accel-Buffering': header(Type.String({ const: 'no', description: 'nginx (and proxies that honour it) pass each event on as it comes' }), true)
          },
          content: { 'text/event-stream': { schema: LiveEventStream } }
        },
        ...refusals({
          csrf: true,
          signedIn: true,
          validated: ['Last-Event-ID'],
          limit: 'channels opened by this person (RATE_LIMIT_EVENTS_PER_MINUTE)',
          own: { 503: ['`unavailable`: this instance holds all the live channels it may (EVENTS_MAX_STREAMS)'] }
        })
      }
    },
    config: {
      // Listening is not activity: an open tab alone does not keep a session from its idle timeout.
      touchesSession: false,
      limit: 'events',
      scopes: []
    }
  }, async (request, reply) => {
    await app.live.openChannel(request, reply, request.headers['last-event-id'])
  })
}

export default routes
