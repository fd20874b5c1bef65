// The server span of one incoming request (plugins/tracing.ts starts it as the request arrives),
// through @opentelemetry/api alone. Its parent is the trace context the request carries only when
// a trusted proxy sent it; anyone else's context is a link at most, never the parent.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, isSpanContextValid, type Context, type SpanContext } from '@opentelemetry/api'
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions'
import { ATTR, failed } from './spans.js'
import { version } from '../version.js'

export interface IncomingRequest {
  method: string
  /** The route's template, when a route matched. */
  route: string | undefined
  /** The path without its query (the callback's carries the code and state). */
  path: string
  requestId: string
  headers: Record<string, string | string[] | undefined>
  /** Whether the connection comes from a proxy of TRUST_PROXY. */
  fromTrustedProxy: boolean
}

export interface RequestSpan {
  /** The span's context while it is recorded (for log lines), else undefined. */
  readonly context: SpanContext | undefined
  /** Runs `work` (the rest of the request) with the span as the current one. */
  run: (work: () => void) => void
  failed: (error: unknown) => void
  end: (status: number) => void
}

const tracer = trace.getTracer('media-bff', version)

/**
 * The header a trace context is read from: traceparent alone, whatever else the request carries.
 * Never tracestate, even from a trusted proxy: it is vendor data a client may have chosen, and
 * whatever is joined goes on to the media service with every call made for the request.
 */
const TRACE_HEADERS = ['traceparent'] as const

export function startRequestSpan (request: IncomingRequest): RequestSpan {
  const sent = sentContext(request.headers)
  const parent = request.fromTrustedProxy ? sent : ROOT_CONTEXT
  const client = request.fromTrustedProxy ? undefined : trace.getSpanContext(sent)
  const span = tracer.startSpan(request.route === undefined ? request.method : `${request.method} ${request.route}`, {
    kind: SpanKind.SERVER,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: request.method,
      [ATTR_URL_PATH]: request.path,
      ...(request.route === undefined ? {} : { [ATTR_HTTP_ROUTE]: request.route }),
      [ATTR.requestId]: request.requestId
    },
    // Who sent it may well trace too (a browser's own instrumentation): say where it came from.
    links: client !== undefined && isSpanContextValid(client) ? [{ context: client }] : []
  }, parent)
  const active = trace.setSpan(parent, span)
  let errorRecorded = false
  return {
    context: span.isRecording() ? span.spanContext() : undefined,
    run: (work) => { context.with(active, work) },
    failed: (error) => {
      errorRecorded = true
      failed(span, error)
    },
    end: (status) => {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status)
      if (status >= 500 && !errorRecorded) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    }
  }
}

/** The trace context of the request's own headers, without its tracestate, baggage or anything else. */
function sentContext (headers: IncomingRequest['headers']): Context {
  const carrier: Record<string, string> = {}
  for (const name of TRACE_HEADERS) {
    const value = headers[name]
    if (typeof value === 'string') carrier[name] = value
  }
  return carrier.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, carrier)
}
