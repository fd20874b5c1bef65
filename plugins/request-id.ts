// The request's id (src/request-id.ts, chosen by genReqId in src/server-options.ts) in its
// answer, whatever the answer; the calls made for the request are handed request.id.
import fp from 'fastify-plugin'
import { REQUEST_ID_HEADER } from '../src/request-id.js'

export default fp(async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    done()
  })
}, { name: 'request-id' })
