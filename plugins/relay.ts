// The relay: the media service as the website's API back-end (routes/api.ts). Calls go out on
// the media client's pooled agent, whose timeouts are the relay's deadlines.
import fp from 'fastify-plugin'
import { createRelay, type Relay } from '../src/relay/relay-call.js'

declare module 'fastify' {
  interface FastifyInstance {
    relay: Relay
  }
}

export default fp(async (app) => {
  app.decorate('relay', createRelay({
    dispatcher: app.media.dispatcher,
    onCall: (operation, status, seconds) => app.metrics.upstreamCall(operation, status, seconds),
    // The status line is gone already; the browser sees a cut-off body. Worth an operator's look.
    onStreamError: (operation, error) => app.log.warn({ err: error, operation }, 'a relayed answer failed while streaming')
  }))
}, { name: 'relay', dependencies: ['media', 'metrics'] })
