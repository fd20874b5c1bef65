// The relay: the media service as the website's API back-end (routes/api.ts). Calls go out on an
// undici agent of the relay's own, so relayed calls held open by a slow service or a browser
// that stops reading (each bounded by UPSTREAM_TIMEOUT_MS) can never take the connections that
// register, finish, user/info and the code exchange need (app.media.dispatcher).
import fp from 'fastify-plugin'
import { Agent } from 'undici'
import { createRelay, type Relay } from '../src/relay/relay-call.js'
import { createValidatorBinding } from '../src/relay/validators.js'

declare module 'fastify' {
  interface FastifyInstance {
    relay: Relay
  }
}

export default fp(async (app) => {
  const { config } = app
  const timeoutMs = config.upstreamTimeoutMs
  const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000, connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  app.decorate('relay', createRelay({
    dispatcher: agent,
    timeoutMs,
    maxInFlightPerViewer: config.relayMaxInFlightPerUser,
    validators: createValidatorBinding(config.session.secrets),
    onCall: (operation, status, seconds) => app.metrics.upstreamCall(operation, status, seconds),
    // The status line is gone already; the browser sees a cut-off body. Worth an operator's look.
    onStreamError: (operation, error) => {
      app.metrics.relayCutOff(operation, error.failure === 'timeout' ? 'deadline' : error.failure === 'malformed' ? 'malformed' : 'upstream')
      app.log.warn({ err: { type: error.name, message: error.message }, operation }, 'a relayed answer failed while streaming')
    }
  }))
  app.addHook('onClose', async () => { await agent.close() })
}, { name: 'relay', dependencies: ['config', 'metrics'] })
