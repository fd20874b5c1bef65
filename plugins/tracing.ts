// The server span of each request, while tracing is on (src/app.ts registers this only then; the
// SDK behind @opentelemetry/api is set up by src/tracing/sdk.ts). Registered first, so every other
// hook, the body, the handler and what they call (media-bff's own spans, the calls to the media
// service) run in the request span's context.
//
// A request joins the trace its traceparent names only when it comes from a proxy of TRUST_PROXY,
// as X-Request-Id and X-Forwarded-* are believed only from there: anyone else would choose the
// trace id of media-bff's spans and of the call to the service, and force sampling under a
// parentbased_* sampler. Their request starts a trace of its own, linked to the context it named.
// Nothing of a client's tracestate or baggage goes on (src/tracing/sdk.ts propagates W3C trace
// context only, and only media-bff's own).
import fp from 'fastify-plugin'
import { trustedPeer } from '../src/trusted-peer.js'
import { startRequestSpan, type RequestSpan } from '../src/tracing/request-span.js'
import { tieLoggerToSpan } from '../src/tracing/log-fields.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: no span for this route's requests (probes and scrapes, asked every few seconds). */
    traced?: boolean
  }
}

export default fp(async (app) => {
  const { trustProxy } = app.config
  const trusted = trustedPeer(trustProxy)
  const spans = new WeakMap<object, RequestSpan>()

  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.traced === false) {
      done()
      return
    }
    const span = startRequestSpan({
      method: request.method,
      route: request.routeOptions.url,
      path: request.url.split('?')[0] ?? '',
      requestId: request.id,
      headers: request.headers,
      fromTrustedProxy: trusted(request.socket.remoteAddress)
    })
    spans.set(request, span)
    if (span.context !== undefined) tieLoggerToSpan(request.log, span.context)
    span.run(done)
  })
  app.addHook('onError', (request, _reply, error, done) => {
    spans.get(request)?.failed(error)
    done()
  })
  // After the answer's last byte, hijacked answers (the live channel) included.
  app.addHook('onResponse', (request, reply, done) => {
    spans.get(request)?.end(reply.statusCode)
    done()
  })
}, { name: 'tracing', dependencies: ['config'] })
