// Whether media-bff sends traces, and how, from the standard OpenTelemetry variables
// (docs/guide/operate.md, "Tracing and request ids"): tracing is on when an OTLP endpoint is named,
// the exporter is otlp (the standard's default) and the SDK is not disabled; the protocol picks the
// exporter. The sampler and the batch processor's settings are read here (OpenTelemetry JS 3 leaves
// them to whoever builds the provider), checked so a typo is refused at start rather than quietly
// sampling everything. The exporter and the resource detector read the rest themselves
// (endpoint, headers, timeout, compression, service name, resource attributes).
import type { DeclaredReader } from './declared-reader.js'

export type OtlpProtocol = 'http/protobuf' | 'http/json'

export type SamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio'

export interface TracingConfig {
  enabled: boolean
  /** The exporter's wire format: OTLP over HTTP, protobuf (the standard's default) or JSON. */
  protocol: OtlpProtocol
  /** OTEL_TRACES_SAMPLER, and OTEL_TRACES_SAMPLER_ARG's ratio for the ratio samplers (default 1). */
  sampler: { name: SamplerName, ratio: number }
  /** OTEL_BSP_*: what the standard leaves unset is left to the SDK's defaults. */
  batch: { scheduledDelayMillis?: number, exportTimeoutMillis?: number, maxQueueSize?: number, maxExportBatchSize?: number }
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json']
const RATIO_SAMPLERS = ['traceidratio', 'parentbased_traceidratio']
const BATCH_SETTINGS = {
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
  exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'
} as const

export function readTracing (read: DeclaredReader): TracingConfig {
  const endpoint = read.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? read.raw('OTEL_EXPORTER_OTLP_ENDPOINT')
  const exporters = read.list('OTEL_TRACES_EXPORTER')
  const disabled = read.string('OTEL_SDK_DISABLED').toLowerCase() === 'true'
  const off: TracingConfig = { enabled: false, protocol: 'http/protobuf', sampler: { name: 'parentbased_always_on', ratio: 1 }, batch: {} }
  if (disabled || exporters.includes('none')) return off
  if (exporters.some((exporter) => exporter !== 'otlp')) {
    read.problem('OTEL_TRACES_EXPORTER', `must be otlp or none: media-bff sends traces over OTLP only, got "${exporters.join(',')}"`)
    return off
  }
  if (endpoint === undefined) return off

  const endpointName = read.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  if (!/^https?:\/\/[^\s/]+/.test(endpoint)) read.problem(endpointName, `must be an http or https URL (an OTLP/HTTP receiver, e.g. http://collector:4318), got "${endpoint}"`)

  const protocolName = read.raw('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
  const protocol = read.raw(protocolName) ?? 'http/protobuf'
  if (protocol === 'grpc') read.problem(protocolName, 'grpc is not supported: use http/protobuf (a collector\'s port 4318) or http/json')
  else if (!PROTOCOLS.includes(protocol)) read.problem(protocolName, `must be http/protobuf or http/json, got "${protocol}"`)

  // One of the declared samplers (src/config/variables.ts); the default for anything else.
  const sampler = read.choice('OTEL_TRACES_SAMPLER') as SamplerName
  const ratio = read.raw('OTEL_TRACES_SAMPLER_ARG')
  const ratioIsValid = ratio === undefined || /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(ratio)
  if (RATIO_SAMPLERS.includes(sampler) && !ratioIsValid) {
    read.problem('OTEL_TRACES_SAMPLER_ARG', `must be a ratio from 0 to 1 (0.1 samples one trace in ten), got "${ratio ?? ''}"`)
  }
  const batch: TracingConfig['batch'] = {}
  for (const [setting, name] of Object.entries(BATCH_SETTINGS) as Array<[keyof TracingConfig['batch'], string]>) {
    const value = read.optionalInteger(name)
    if (value !== undefined) batch[setting] = value
  }
  if ((batch.maxExportBatchSize ?? 512) > (batch.maxQueueSize ?? 2048)) read.problem('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'must not be larger than OTEL_BSP_MAX_QUEUE_SIZE')
  return {
    enabled: true,
    protocol: PROTOCOLS.includes(protocol) ? protocol as OtlpProtocol : 'http/protobuf',
    sampler: { name: sampler, ratio: ratio !== undefined && ratioIsValid ? Number(ratio) : 1 },
    batch
  }
}
