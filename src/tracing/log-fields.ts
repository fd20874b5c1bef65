// trace_id and span_id on log lines while tracing is on (src/server-options.ts puts this mixin in
// the logger then, and only then): the span running when the line is written, else the span of
// the request whose logger writes it. Fastify writes "request completed" once the answer is
// sent, outside any span's context; the request's logger still names its span.
import { isSpanContextValid, trace, type SpanContext } from '@opentelemetry/api'

const requestSpans = new WeakMap<object, SpanContext>()

/** From now on, lines of `logger` (a request's) written outside any span name `span`. */
export function tieLoggerToSpan (logger: object, span: SpanContext): void {
  requestSpans.set(logger, span)
}

/** pino's mixin: called for each line with the logger that writes it. */
export function traceLogFields (_fields: object, _level: number, logger: object): Record<string, string> {
  const active = trace.getActiveSpan()?.spanContext()
  const span = active !== undefined && isSpanContextValid(active) ? active : requestSpans.get(logger)
  if (span === undefined) return {}
  return { trace_id: span.traceId, span_id: span.spanId, trace_flags: `0${span.traceFlags.toString(16)}` }
}
