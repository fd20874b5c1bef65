// Fastify construction options derived from the configuration: the pieces that must be fixed
// when the instance is created (proxy trust, body limit, logger with redaction).
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { LogController, type FastifyError, type FastifyReply, type FastifyServerOptions } from 'fastify'
import type { Config } from './config/config.js'
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.js'
import { traceLogFields } from './tracing/log-fields.js'
import { standardOutputLogs } from './log-destination.js'

/** Header and body paths that may hold a token, code, secret or cookie: never printed. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.access_token',
  '*.refresh_token',
  '*.accessToken',
  '*.refreshToken',
  '*.id_token',
  // The authorization code travels in the callback's query and in the token request's
  // parameters, so it is redacted there. A bare `*.code` would also hide the app's own error
  // codes (err.code: 'upstream_error'), which operators need to read.
  'query.code',
  '*.query.code',
  'body.code',
  '*.body.code',
  'params.code',
  'parameters.code',
  '*.parameters.code',
  '*.code_verifier',
  '*.codeVerifier',
  '*.state',
  '*.client_secret',
  '*.clientSecret',
  '*.password',
  '*.private_token'
]

/**
 * How long a closing instance may take after SIGTERM (src/server.ts) before it is ended anyway:
 * in-flight requests, webhook follow-ups (10 s of it), then Redis and the pools. An orchestrator
 * must wait longer before it kills (docker/kubernetes/base/deployment.yaml).
 */
export const SHUTDOWN_GRACE_MS = 20_000

export function serverOptions (config: Config, logger: FastifyServerOptions['logger'] | false = defaultLogger(config)): FastifyServerOptions {
  return {
    logger,
    // One line per request instead of Fastify's two, written by plugins/access-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    // Only the configured proxies may tell us the client's address and scheme.
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    // Only those proxies may name the request too (X-Request-Id); it is logged as reqId.
    requestIdHeader: false,
    genReqId: requestIdFor(config.trustProxy),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.upstreamTimeoutMs * 3,
    // Fastify's default JSON parser refuses __proto__ poisoning; keep the secure defaults.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Unknown fields are refused, not silently dropped, and nothing is coerced (true is not 1).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // plugins/gate.ts answers requests that arrive while closing, in the contract's shape.
    return503OnClosing: false,
    // Malformed URLs and over-long path parameters never reach a route; answer them in the
    // contract's shape too.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      const body = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? { status: 404, error: 'not_found', message: 'There is no such resource.' }
        : { status: 400, error: 'invalid_request', message: 'The request URL could not be read.' }
      reply.code(body.status).header('cache-control', 'no-store').header(REQUEST_ID_HEADER, request.id).send({ error: body.error, message: body.message })
    },
    clientErrorHandler: answerClientError,
    forceCloseConnections: 'idle'
  }
}

export function defaultLogger (config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    // Never a write that can hold the process up, nor its exit (src/log-destination.ts).
    stream: standardOutputLogs(),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // trace_id and span_id on every line while tracing is on; nothing at all while it is off.
    ...(config.tracing.enabled ? { mixin: traceLogFields } : {}),
    serializers: {
      // The query string is never logged: the callback's carries the code and state.
      req: (request: { method: string, url: string, id: string, ip?: string }) => ({
        id: request.id,
        method: request.method,
        path: request.url.split('?')[0],
        ip: request.ip
      }),
      // Fastify's type expects a stack from an err serializer; leaving it out is the point.
      err: summarizeError as unknown as ErrSerializer,
      error: summarizeError
    }
  }
}

type ErrSerializer = (error: FastifyError) => { type: string, message: string, stack: string }

const MAX_ERROR_MESSAGE = 500

/**
 * An error as type, code and message, nothing more. openid-client's errors carry the callback's
 * parameters (code, state), token response bodies, request headers and the upstream Response in
 * `cause` and other fields, and pino's default serializer would print all of them, and stack
 * frames. A query string inside a message (a URL) is cut off too.
 */
export function summarizeError (value: unknown): { type: string, code?: string, message?: string } {
  if (value === null || typeof value !== 'object') return { type: typeof value }
  const error = value as { name?: unknown, type?: unknown, code?: unknown, message?: unknown }
  // Errors by name; the plain { type, message, code } objects plugins/errors.ts logs keep their type.
  const type = value instanceof Error || typeof error.type !== 'string'
    ? (typeof error.name === 'string' ? error.name : value.constructor?.name ?? 'Object')
    : error.type
  const summary: { type: string, code?: string, message?: string } = { type }
  if (typeof error.code === 'string' || typeof error.code === 'number') summary.code = String(error.code)
  if (typeof error.message === 'string') {
    summary.message = error.message.replace(/\?[^\s?#=&]+=[^\s#]*/g, '?[query removed]').slice(0, MAX_ERROR_MESSAGE)
  }
  return summary
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KiB, a bare CR,
 * NUL in the path, Content-Length with Transfer-Encoding, a head that never completes) still get
 * the contract's JSON: 431 or 408 where HTTP has a status for it, else 400, all `invalid_request`.
 */
function answerClientError (error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy(error)
    return
  }
  const [status, message] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'The request headers are too large.']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive.']
      : [400, 'The request could not be read.']
  const body = JSON.stringify({ error: 'invalid_request', message })
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`)
}
