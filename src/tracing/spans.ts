// The spans of media-bff's own operations (docs/guide/operate.md, "Tracing and request ids"),
// through @opentelemetry/api alone. With tracing off no SDK is loaded (src/tracing/sdk.ts) and
// every call here is the API's no-op. Attributes say what an operator needs to follow an operation:
// tenant, outcome, the ids of uploads and webhooks; never a token, code, cookie, secret or
// signature.
import { context, INVALID_SPAN_CONTEXT, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Span, type SpanContext } from '@opentelemetry/api'
import { version } from '../version.js'

export type { Span, SpanContext } from '@opentelemetry/api'

/** The attributes media-bff's spans carry, under a prefix of its own. */
export const ATTR = {
  tenant: 'media_bff.tenant',
  /** What came of the operation: signed_in, refreshed, reused, accepted, duplicate, ... */
  outcome: 'media_bff.outcome',
  requestId: 'media_bff.request_id',
  /** A refresh's part in its single flight: `led` (it called the token endpoint) or `joined`. */
  singleFlight: 'media_bff.refresh.single_flight',
  scopes: 'media_bff.sign_in.scopes',
  folderId: 'media_bff.upload.folder_id',
  ulid: 'media_bff.upload.ulid',
  files: 'media_bff.upload.files',
  operation: 'media_bff.relay.operation',
  /** The status of a relayed call's answer (the service's). */
  relayStatus: 'media_bff.relay.status',
  webhookId: 'media_bff.webhook.id',
  webhookEvent: 'media_bff.webhook.event',
  openSeconds: 'media_bff.live.open_seconds',
  /** The failure's kind (an error's code or class), as OpenTelemetry's error.type: never its message. */
  errorType: 'error.type'
} as const

const tracer = trace.getTracer('media-bff', version)

/**
 * Whether an SDK records this process's spans (src/tracing/sdk.ts says so as it starts). Without
 * one, inSpan runs its work with a span that records nothing and builds no context for it: the
 * API's no-op would build both on every call, a few per request.
 */
let recording = false
const NOT_RECORDED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT)

export function recordSpans (): void {
  recording = true
}

/**
 * Runs `work` in a span named `name`, a child of the current one, which it ends. A failure marks
 * the span failed with the error's kind only: messages may quote what the service sent.
 */
export async function inSpan<T> (name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  if (!recording) return await work(NOT_RECORDED)
  return await tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span)
    } catch (error) {
      failed(span, error)
      throw error
    } finally {
      span.end()
    }
  })
}

/**
 * A span its caller ends, for operations that outlive a call; `linked`: spans it follows from
 * without being their child (a live channel's close, its open).
 */
export function startSpan (name: string, attributes: Attributes, linked: readonly SpanContext[] = []): Span {
  return tracer.startSpan(name, { attributes, links: linked.map((context) => ({ context })) })
}

/** The span's context when it is recorded (and worth linking to later), else undefined. */
export function recordedContext (span: Span): SpanContext | undefined {
  return span.isRecording() ? span.spanContext() : undefined
}

/** Runs `work` with `span` as the current span: what it starts is the span's child. */
export function inContextOf<T> (span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work)
}

/** Marks the span failed, with the error's kind. */
export function failed (span: Span, error: unknown): void {
  const kind = errorKind(error)
  span.setAttribute(ATTR.errorType, kind)
  span.setStatus({ code: SpanStatusCode.ERROR, message: kind })
}

function errorKind (error: unknown): string {
  if (error === null || typeof error !== 'object') return typeof error
  // An AppError's or a system error's code, an UpstreamError's failure (refused, timeout, ...).
  const { code, failure, name } = error as { code?: unknown, failure?: unknown, name?: unknown }
  for (const kind of [code, failure]) if (typeof kind === 'string' && /^[\w.-]{1,64}$/.test(kind)) return kind
  return typeof name === 'string' ? name : 'Error'
}

/**
 * The current span as a W3C traceparent, to carry an operation's trace through a queue
 * (webhook follow-ups); undefined with tracing off or outside any span.
 */
export function currentTraceparent (): string | undefined {
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier.traceparent
}

/** Runs `work` as part of the trace `traceparent` names (currentTraceparent), or of none. */
export function inTraceOf<T> (traceparent: string | undefined, work: () => T): T {
  if (traceparent === undefined) return work()
  return context.with(propagation.extract(ROOT_CONTEXT, { traceparent }), work)
}

/** Attributes for the span running now, if any: for code that learns an outcome deep in a call. */
export function noteOnCurrentSpan (attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes)
}
