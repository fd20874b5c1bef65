// OpenTelemetry tracing, when the configuration turns it on (src/config-tracing.ts): loaded by
// src/server.ts and src/dev.ts with a dynamic import, so with tracing off none of this is loaded.
// The official SDK does the work: the Node tracer provider (its sampler from OTEL_TRACES_SAMPLER),
// an OTLP/HTTP exporter in the configured protocol (its endpoint, headers, timeout and compression
// from OTEL_EXPORTER_OTLP_*), the resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES,
// W3C trace context in and out; @fastify/otel makes the server span of each request and
// @opentelemetry/instrumentation-undici a client span of each call to the media service and its
// token endpoint, carrying the trace on. Both instrumentations work through diagnostics channels,
// not by patching modules, so starting here, after the modules are loaded and before the app is
// built, is soon enough: no `--import` preload is needed.
//
// What they record is kept to what is safe: request paths without their query (the callback's
// code and state), no headers, no exception stacks; client URLs without their query values; and
// every span passes a Redactor on its way out.
import { isSpanContextValid } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { detectResources, envDetector, hostDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, NodeTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-node'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, ATTR_URL_FULL, ATTR_URL_PATH, ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import type { Config } from '../config.js'
import type { Env } from '../env-reader.js'
import { version } from '../version.js'
import { Redactor } from './redaction.js'
import { ATTR } from './spans.js'
import { tieLoggerToSpan } from './log-fields.js'

export interface Tracing {
  /** Sends what is left and stops: after the app has closed. */
  shutdown: () => Promise<void>
}

export function startTracing (config: Config, env: Env): Tracing {
  // The SDK reads its variables from the process's environment; those a file of variables gave
  // (src/env-file.ts) are put there, under what the environment itself sets.
  for (const [name, value] of Object.entries(env)) if (name.startsWith('OTEL_') && process.env[name] === undefined) process.env[name] = value
  const exporter = config.tracing.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter()
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'media-bff', [ATTR_SERVICE_VERSION]: version })
      .merge(detectResources({ detectors: [hostDetector, envDetector] })),
    spanProcessors: [new RedactingSpanProcessor(new Redactor(secretsOf(config)), new BatchSpanProcessor(exporter))]
  })
  // Trace context only: a browser's baggage header is never carried on to the service.
  provider.register({ propagator: new W3CTraceContextPropagator() })

  const fastify = new FastifyOtelInstrumentation({
    // Attached to the app as Fastify creates it (src/app.ts needs nothing of it).
    registerOnInitialization: true,
    // One span per request, not one per hook of every plugin nor one more for its handler:
    // Fastify keeps the request span's context through the hooks, the body and the handler.
    instrumentHooks: false,
    instrumentHandler: false,
    recordExceptions: false,
    requestHook: (span, request) => {
      const route = request.routeOptions.url
      span.updateName(route === undefined ? request.method : `${request.method} ${route}`)
      span.setAttribute(ATTR_URL_PATH, request.url.split('?')[0] ?? '')
      span.setAttribute(ATTR.requestId, request.id)
      const context = span.spanContext()
      if (isSpanContextValid(context)) tieLoggerToSpan(request.log, context)
    }
  })
  const undici = new UndiciInstrumentation({
    // The URL without its query: a relayed call's query is the person's own input.
    startSpanHook: (request) => {
      const url = new URL(request.path, request.origin)
      return { [ATTR_URL_FULL]: `${url.origin}${url.pathname}`, [ATTR_URL_QUERY]: undefined }
    }
  })
  fastify.setTracerProvider(provider)
  undici.setTracerProvider(provider)

  return {
    shutdown: async () => {
      fastify.disable()
      undici.disable()
      await provider.shutdown()
    }
  }
}

/** What the Redactor replaces wherever it appears: every secret of the configuration. */
function secretsOf (config: Config): string[] {
  return [
    config.oauth.clientSecret,
    ...config.session.secrets,
    ...config.tokenKeys.map((tokenKey) => tokenKey.key.export().toString('base64')),
    config.metricsToken ?? '',
    config.operatorToken ?? '',
    ...[...config.webhooks.keys.values()].flat()
  ]
}

/** Every ended span through the Redactor, then on to the exporting processor. */
class RedactingSpanProcessor implements SpanProcessor {
  constructor (private readonly redactor: Redactor, private readonly next: SpanProcessor) {}

  onStart (...args: Parameters<SpanProcessor['onStart']>): void {
    this.next.onStart(...args)
  }

  onEnd (span: ReadableSpan): void {
    this.next.onEnd(this.redactor.span(span))
  }

  async forceFlush (): Promise<void> {
    await this.next.forceFlush()
  }

  async shutdown (): Promise<void> {
    await this.next.shutdown()
  }
}
