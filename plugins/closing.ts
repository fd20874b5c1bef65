// Graceful shutdown: once close has begun, requests still arriving on open keep-alive
// connections get the contract's 503 (and the connection is closed), while requests already in
// flight finish. Fastify's built-in 503 would answer in its own shape.
import fp from 'fastify-plugin'
import { AppError } from '../src/errors.js'

const RETRY_AFTER_S = 2

export default fp(async (app) => {
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  // Synchronous and registered before every other hook but the request id's (src/app.ts): a
  // request that arrived before the close began finishes even if its session was still loading
  // when it began. The error goes through the contract's error handler (plugins/errors.ts) like any other.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) {
      done()
      return
    }
    reply.header('connection', 'close')
    done(new AppError('unavailable', 'media-bff is restarting; try again in a moment.', { retryAfter: RETRY_AFTER_S }))
  })
}, { name: 'closing' })
