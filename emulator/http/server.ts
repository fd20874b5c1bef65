// One Fastify instance per origin, with what both origins share: every failure (Fastify's own
// included) answered in the emulator's error shape, 404 and 405 as JSON, a 503 until the
// origins are known, and a stop that does not wait for clients. api-server.ts and
// upload/upload-server.ts add the routes. Handlers throw EmulatorError for every bad input they
// can name; the 500 below exists only for bugs, so no input is meant to reach it.
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { tooLarge } from './body-fields.js'
import { EmulatorError, errorBody } from './emulator-error.js'
import { sendError, sendJson } from './replies.js'
import { abandonUnreadBody } from './requests.js'

const knownMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

export function createEmulatorServer (isListening: () => boolean): FastifyInstance {
  const app = Fastify({
    logger: false,
    // stop() closes every connection (keep-alive ones, uploads in flight, calls held by a
    // delay fault), so a test's teardown never waits for a client.
    forceCloseConnections: true,
    // Node's default rather than Fastify's 72 s: clients drop idle connections as they would
    // with a plain upstream.
    keepAliveTimeout: 5000,
    // HEAD is not part of the interface; it is a 405 like any other method a path lacks.
    exposeHeadRoutes: false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // A path that cannot be decoded, or a parameter too long, names nothing the service has.
    frameworkErrors: (_error, request, reply) => { notFound(request, reply) }
  })
  app.removeAllContentTypeParsers()

  // The servers listen before the answers can be built (they name the origins, which need the
  // ports); anything arriving in that instant is told to retry.
  app.addHook('onRequest', (_request, reply, done) => {
    if (isListening()) done()
    else sendJson(reply, 503, errorBody('starting', 'The emulator is starting.', 'Please retry.'))
  })

  app.setNotFoundHandler((request, reply) => {
    const allowed = knownMethods.filter((method) => method !== request.method && routeExists(app, method, request.url))
    if (allowed.length === 0) {
      notFound(request, reply)
      return
    }
    abandonUnreadBody(request, reply)
    sendError(reply, new EmulatorError(405, 'method_not_allowed', `${request.method} is not allowed on ${pathOf(request)}; use ${allowed.join(' or ')}.`, {
      headers: { allow: allowed.join(', ') }
    }))
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    abandonUnreadBody(request, reply)
    const known = asEmulatorError(error, request)
    if (known !== undefined) return sendError(reply, known)
    // A client that hung up mid-request is not the emulator's failure: nothing to answer.
    if (reply.raw.destroyed || (request.raw.destroyed && !request.raw.complete)) return
    process.stderr.write(`media emulator: unexpected error on ${request.method} ${request.url}: ${error.stack ?? String(error)}\n`)
    return sendJson(reply, 500, errorBody('server_error', 'The emulator failed unexpectedly; this is a bug in the emulator.'))
  })
  return app
}

/** Fastify's own refusals (body too large, bad content type or length) in the emulator's shape. */
function asEmulatorError (error: FastifyError, request: FastifyRequest): EmulatorError | undefined {
  if (error instanceof EmulatorError) return error
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return tooLarge()
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new EmulatorError(415, 'unsupported_media_type', `A body of type ${request.headers['content-type'] ?? '(none given)'} is not understood.`)
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) return new EmulatorError(status, 'invalid_request', error.message)
  return undefined
}

function notFound (request: FastifyRequest, reply: FastifyReply): void {
  abandonUnreadBody(request, reply)
  sendError(reply, new EmulatorError(404, 'not_found', `There is nothing at ${pathOf(request)}.`))
}

function routeExists (app: FastifyInstance, method: string, url: string): boolean {
  try {
    return app.findRoute({ method: method as 'GET', url }) !== null
  } catch {
    return false
  }
}

function pathOf (request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/'
}
