// Whether media-bff sends traces, and how, from the standard OpenTelemetry variables (README.md,
// "Tracing and request ids"). Only what decides that is read here: tracing is on when an OTLP
// endpoint is named, the exporter is otlp (the standard's default) and the SDK is not disabled;
// the protocol picks the exporter, and the sampler is checked so a typo is refused at start
// rather than quietly sampling everything. The SDK reads every other OTEL_* variable itself
// (endpoint, headers, timeout, compression, service name, resource attributes, batch settings),
// and reads these again, so what is checked here is what it uses.
import type { EnvReader } from './env-reader.js'

export type OtlpProtocol = 'http/protobuf' | 'http/json'

export interface TracingConfig {
  enabled: boolean
  /** The exporter's wire format: OTLP over HTTP, protobuf (the standard's default) or JSON. */
  protocol: OtlpProtocol
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json']
const RATIO_SAMPLERS = ['traceidratio', 'parentbased_traceidratio']
const SAMPLERS = ['always_on', 'always_off', 'parentbased_always_on', 'parentbased_always_off', ...RATIO_SAMPLERS]

export function readTracing (read: EnvReader): TracingConfig {
  const endpoint = read.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? read.raw('OTEL_EXPORTER_OTLP_ENDPOINT')
  const exporters = read.list('OTEL_TRACES_EXPORTER', ['otlp'])
  const disabled = read.string('OTEL_SDK_DISABLED', 'false').toLowerCase() === 'true'
  const off = { enabled: false, protocol: 'http/protobuf' } as const
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

  const sampler = read.string('OTEL_TRACES_SAMPLER', 'parentbased_always_on')
  if (!SAMPLERS.includes(sampler)) read.problem('OTEL_TRACES_SAMPLER', `must be one of ${SAMPLERS.join(', ')}, got "${sampler}"`)
  const ratio = read.raw('OTEL_TRACES_SAMPLER_ARG')
  if (RATIO_SAMPLERS.includes(sampler) && ratio !== undefined && !(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(ratio))) {
    read.problem('OTEL_TRACES_SAMPLER_ARG', `must be a ratio from 0 to 1 (0.1 samples one trace in ten), got "${ratio}"`)
  }
  return { enabled: true, protocol: PROTOCOLS.includes(protocol) ? protocol as OtlpProtocol : 'http/protobuf' }
}
