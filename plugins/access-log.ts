// One line per answered request, "request completed": its id, method, path (never the query),
// client address, status and time taken, with the request's trace while tracing is on. It takes
// the place of Fastify's two lines a request (src/server-options.ts turns those off).
//
// The line is written by a logger without the redaction paths of every other line: it holds only
// the fields above, through the same serializers, none of them a header or a body, and redacting
// each request's line cost a tenth of media-bff's CPU under load (bench/analysis.md).
import fp from 'fastify-plugin'
import { requestTraceFields } from '../src/tracing/log-fields.js'

export default fp(async (app) => {
  // The level is set once, at start (LOG_LEVEL).
  if (!['trace', 'debug', 'info'].includes(app.log.level)) return
  const lines = app.log.child({}, { redact: [] })
  app.addHook('onResponse', (request, reply, done) => {
    lines.info({ reqId: request.id, req: request, res: reply, responseTime: reply.elapsedTime, ...requestTraceFields(request.log) }, 'request completed')
    done()
  })
}, { name: 'access-log' })
