// Graceful shutdown: once close has begun, requests still arriving on open keep-alive
// connections get the contract's 503 (and the connection is closed), while requests already in
// flight finish. Fastify's built-in 503 would answer in its own shape.
import fp from 'fastify-plugin'
import { AppError } from '../src/errors.js'

const RETRY_AFTER_S = 2

export default fp(async (app) => {
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return
    reply.header('connection', 'close')
    throw new AppError('unavailable', 'media-bff is restarting; try again in a moment.', { retryAfter: RETRY_AFTER_S })
  })
}, { name: 'closing', dependencies: ['errors'] })
