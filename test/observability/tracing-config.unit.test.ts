// Whether tracing is on, from the standard OpenTelemetry variables (src/config/tracing.ts): off
// unless an endpoint is named, off whenever the SDK or the exporter is switched off, and a
// protocol or sampler media-bff would not honour is refused at start, by name.
import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config/config.js'
import { testTokenKey } from '../helpers/secrets.js'

const base = {
  PUBLIC_URL: 'http://localhost:3000',
  MEDIA_BASE_URL: 'http://127.0.0.1:4000',
  OAUTH_CLIENT_ID: 'client',
  OAUTH_CLIENT_SECRET: 'secret',
  SESSION_SECRETS: 'a-session-secret-of-at-least-32-characters',
  TOKEN_KEYS: testTokenKey()
}
const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }

const tracing = (env: Record<string, string>): unknown => loadConfig({ ...base, ...env }).tracing
const problems = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ ...base, ...env })
    return []
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.problems
  }
}

t.test('off unless an OTLP endpoint is named; protobuf unless JSON is asked for', async (t) => {
  t.match(tracing({}), { enabled: false, protocol: 'http/protobuf' }, 'nothing set: off')
  t.match(tracing({ OTEL_SERVICE_NAME: 'media-bff', OTEL_TRACES_SAMPLER: 'always_on' }), { enabled: false, protocol: 'http/protobuf' }, 'other variables alone turn nothing on')
  t.match(tracing(ENDPOINT), { enabled: true, protocol: 'http/protobuf' }, 'an endpoint: on, in the standard\'s default protocol')
  t.match(tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/v1/traces' }), { enabled: true, protocol: 'http/protobuf' }, 'the traces endpoint alone too')
  t.match(tracing({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), { enabled: true, protocol: 'http/json' })
  t.match(tracing({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }), { enabled: true, protocol: 'http/protobuf' }, 'the traces protocol wins over the general one')
})

t.test('switched off by the standard\'s own switches, whatever else is set', async (t) => {
  t.match(tracing({ ...ENDPOINT, OTEL_SDK_DISABLED: 'true' }), { enabled: false, protocol: 'http/protobuf' })
  t.match(tracing({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }), { enabled: false, protocol: 'http/protobuf' }, 'case does not matter')
  t.match(tracing({ ...ENDPOINT, OTEL_SDK_DISABLED: 'false' }), { enabled: true, protocol: 'http/protobuf' })
  t.match(tracing({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }), { enabled: false, protocol: 'http/protobuf' })
  t.match(tracing({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), { enabled: false, protocol: 'http/protobuf' }, 'nothing of a tracing that is off is judged')
})

t.test('the sampler and the batch processor\'s settings, which the SDK no longer reads itself', async (t) => {
  t.same(tracing(ENDPOINT), { enabled: true, protocol: 'http/protobuf', sampler: { name: 'parentbased_always_on', ratio: 1 }, batch: {} }, 'the standard\'s defaults')
  t.match(tracing({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }), { sampler: { name: 'parentbased_traceidratio', ratio: 0.25 } })
  t.match(tracing({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio' }), { sampler: { name: 'traceidratio', ratio: 1 } }, 'a ratio sampler without its argument keeps every trace')
  t.match(tracing({ ...ENDPOINT, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_BSP_EXPORT_TIMEOUT: '2000', OTEL_BSP_MAX_QUEUE_SIZE: '4096', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '256' }), {
    batch: { scheduledDelayMillis: 100, exportTimeoutMillis: 2000, maxQueueSize: 4096, maxExportBatchSize: 256 }
  })
  t.match(problems({ ...ENDPOINT, OTEL_BSP_SCHEDULE_DELAY: 'soon' }), [/^OTEL_BSP_SCHEDULE_DELAY: must be a whole number/])
  t.match(problems({ ...ENDPOINT, OTEL_BSP_MAX_QUEUE_SIZE: '100' }), [/^OTEL_BSP_MAX_EXPORT_BATCH_SIZE: must not be larger than OTEL_BSP_MAX_QUEUE_SIZE/], 'the default batch of 512 in a queue of 100')
})

t.test('what media-bff would not do as asked is refused at start, each variable named', async (t) => {
  t.match(problems({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), [/^OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported: use http\/protobuf/])
  t.match(problems({ ...ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }), [/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: grpc/])
  t.match(problems({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' }), [/^OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json, got "http\/xml"/])
  t.match(problems({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'zipkin' }), [/^OTEL_TRACES_EXPORTER: must be otlp or none/])
  t.match(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), [/^OTEL_EXPORTER_OTLP_ENDPOINT: must be an http or https URL/])
  t.match(problems({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidration' }), [/^OTEL_TRACES_SAMPLER: must be one of always_on, .*got "traceidration"/], 'a sampler the SDK would silently replace by always-on')
  t.match(problems({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' }), [/^OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1/])
  t.match(problems({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }), [/^OTEL_TRACES_SAMPLER_ARG/])
  for (const ratio of ['0', '0.1', '.25', '1', '1.0']) t.same(problems({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio }), [], `ratio ${ratio} taken`)
  t.same(problems({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'anything' }), [], 'the argument is only read for a ratio sampler')
})
