// OpenTelemetry tracing, when the configuration turns it on (src/config/tracing.ts): loaded by
// src/server.ts and src/dev.ts with a dynamic import, so with tracing off none of this is loaded.
// The official SDK does the work: a tracer provider with the sampler OTEL_TRACES_SAMPLER names,
// an OTLP/HTTP exporter in the configured protocol (its endpoint, headers, timeout and compression
// from OTEL_EXPORTER_OTLP_*), a batch processor set by OTEL_BSP_*, the resource from
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, context carried by AsyncLocalStorage (on Node 24
// an async context frame, no promise hook), W3C trace context out. plugins/tracing.ts makes the
// server span of each request and decides whose trace context it joins;
// @opentelemetry/instrumentation-undici makes a client span of each call to the media service and
// its token endpoint, carrying the trace on. The undici instrumentation works through diagnostics
// channels, not by patching modules, so starting here, after the modules are loaded and before
// the app is built, is soon enough: no `--import` preload is needed.
//
// What they record is kept to what is safe: request paths without their query (the callback's
// code and state), no headers, no exception stacks; client URLs without their query values; and
// every span passes a Redactor on its way out.
import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { detectResources, envDetector, hostDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type ReadableSpan, type Sampler, type SpanProcessor } from '@opentelemetry/sdk-trace'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, ATTR_URL_FULL, ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import type { Config } from '../config/config.js'
import type { TracingConfig } from '../config/tracing.js'
import type { Env } from '../config/env-reader.js'
import { version } from '../version.js'
import { Redactor } from './redaction.js'
import { recordSpans } from './spans.js'

export interface Tracing {
  /** Sends what is left and stops: after the app has closed. */
  shutdown: () => Promise<void>
}

export function startTracing (config: Config, env: Env): Tracing {
  // The exporter and the resource detector read their variables from the process's environment;
  // those a file of variables gave (src/config/env-file.ts) are put there, under what the environment
  // itself sets.
  for (const [name, value] of Object.entries(env)) if (name.startsWith('OTEL_') && process.env[name] === undefined) process.env[name] = value
  const { protocol, sampler, batch } = config.tracing
  const exporter = protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter()
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'media-bff', [ATTR_SERVICE_VERSION]: version })
      .merge(detectResources({ detectors: [hostDetector, envDetector] })),
    sampler: samplerOf(sampler),
    spanProcessors: [new RedactingSpanProcessor(new Redactor(secretsOf(config)), new BatchSpanProcessor({ exporter, ...batch }))]
  })
  const contextManager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(contextManager)
  // Trace context only: a browser's baggage header is never carried on to the service.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  trace.setGlobalTracerProvider(provider)
  recordSpans()

  const undici = new UndiciInstrumentation({
    // The URL without its query: a relayed call's query is the person's own input.
    startSpanHook: (request) => {
      const url = new URL(request.path, request.origin)
      return { [ATTR_URL_FULL]: `${url.origin}${url.pathname}`, [ATTR_URL_QUERY]: undefined }
    }
  })
  undici.setTracerProvider(provider)

  return {
    shutdown: async () => {
      undici.disable()
      await provider.shutdown()
      trace.disable()
      propagation.disable()
      context.disable()
    }
  }
}

/** The sampler OTEL_TRACES_SAMPLER names, as the specification defines each. */
function samplerOf ({ name, ratio }: TracingConfig['sampler']): Sampler {
  switch (name) {
    case 'always_on': return new AlwaysOnSampler()
    case 'always_off': return new AlwaysOffSampler()
    case 'traceidratio': return new TraceIdRatioBasedSampler(ratio)
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() })
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) })
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
