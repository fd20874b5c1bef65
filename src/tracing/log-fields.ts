// trace_id and span_id on log lines while tracing is on (src/server-options.ts puts this mixin in
// the logger then, and only then): the span running when the line is written, else the span of
// the request whose logger writes it. A request's "request completed" line (plugins/access-log.ts)
// is written once the answer is sent, outside any span's context: it asks requestTraceFields.
import { isSpanContextValid, trace, type SpanContext } from '@opentelemetry/api'

const requestSpans = new WeakMap<object, SpanContext>()

/** From now on, lines of `logger` (a request's) written outside any span name `span`. */
export function tieLoggerToSpan (logger: object, span: SpanContext): void {
  requestSpans.set(logger, span)
}

/** pino's mixin: called for each line with the logger that writes it. */
export function traceLogFields (_fields: object, _level: number, logger: object): TraceFields {
  const active = trace.getActiveSpan()?.spanContext()
  return fieldsOf(active !== undefined && isSpanContextValid(active) ? active : requestSpans.get(logger))
}

/** The fields of the span `logger` (a request's) was tied to; none while tracing is off. */
export function requestTraceFields (logger: object): TraceFields {
  return fieldsOf(requestSpans.get(logger))
}

type TraceFields = Record<string, string>

function fieldsOf (span: SpanContext | undefined): TraceFields {
  if (span === undefined) return {}
  return { trace_id: span.traceId, span_id: span.spanId, trace_flags: `0${span.traceFlags.toString(16)}` }
}
