// The request's id (src/request-id.ts, chosen by genReqId in src/server-options.ts) in its answer,
// and as the id every call made for it to the media service carries: the rest of the request's
// work runs in its id's context (Fastify keeps that context across the body's arrival too).
import fp from 'fastify-plugin'
import { REQUEST_ID_HEADER, runForRequest } from '../src/request-id.js'

export default fp(async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    runForRequest(request.id, done)
  })
}, { name: 'request-id' })
