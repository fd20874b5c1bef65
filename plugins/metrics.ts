// Prometheus metrics on GET /metrics: request latency, sign-ins and callbacks by outcome, token
// refreshes and lock waits, upload registrations and finishes, relayed calls by operation and
// outcome, upstream latency per endpoint; and Node's default process metrics.
// media-bff's own metrics are prefixed media_bff_. Node's defaults (process_*, nodejs_*) keep
// their standard names, which stock Node.js dashboards and alerts query; the scrape job's
// instance and job labels already say whose they are.
// Each app has its own registry, so several instances (tests, benchmarks) never collide.
// With METRICS_TOKEN set, /metrics (and /docs) are for operators only (plugins/gate.ts).
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client'
import { createDurationHistogram, type DurationSeries } from '../src/metrics/duration-histogram.js'
import { droppedLogLines } from '../src/log-destination.js'
import { OPERATORS_ONLY, refusals, text } from '../routes/responses.js'

export interface Metrics {
  login: (outcome: string) => void
  callback: (outcome: string) => void
  refresh: (outcome: string, seconds: number) => void
  lockWait: (seconds: number) => void
  registration: (outcome: string) => void
  finish: (outcome: string) => void
  upstreamCall: (endpoint: string, status: number, seconds: number) => void
  /** A call through the relay (/api/...), by operation and the status media-bff answered. */
  relayed: (operation: string, status: number) => void
  /** Sessions ended, by why (src/sessions/session-endings.ts: signed_out, expired, grant_gone, replaced, ended_by_person, other_sessions, operator, over_cap, anomaly). */
  sessionsEnded: (reason: string, count: number) => void
  /** A relayed answer cut off after its status went out: deadline, malformed (or too large), upstream. */
  relayCutOff: (operation: string, reason: string) => void
  /** A webhook of the media service, by outcome (accepted, duplicate, refused_*). */
  webhook: (outcome: string) => void
  /** A webhook's follow-up, by outcome (announced, unknown_file, nobody_signed_in, unreadable, ...). */
  webhookFollowUp: (outcome: string) => void
  /** Live channels (GET /events) open on this instance now. */
  openStreams: (count: number) => void
  /** A live event written to a channel. */
  eventDelivered: () => void
  /** A live channel closed by media-bff: slow_reader, session_limit, person_limit, session_ended, instance_full. */
  streamDropped: (reason: string) => void
  /** Webhook follow-ups another instance took and never finished, taken over by this one. */
  webhookTakeovers: (count: number) => void
  /**
   * A gauge read when Prometheus scrapes: one value, or (with `label`) one per label value.
   * For what is known elsewhere (a queue's length, a store's size); undefined leaves it out.
   */
  gauge: (name: string, help: string, read: () => Promise<number | undefined> | number | undefined) => void
  gaugeByLabel: (name: string, help: string, label: string, read: () => Promise<Record<string, number>> | Record<string, number>) => void
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics
  }
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export default fp(async (app) => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = createDurationHistogram<'method' | 'route' | 'status_code'>({ name: 'media_bff_http_request_duration_seconds', help: 'HTTP requests served, by route and status', buckets: LATENCY_BUCKETS })
  // The registry reads a metric through get and reset alone (src/metrics/duration-histogram.ts).
  registry.registerMetric(requests.metric as unknown as Metric)
  const logins = new Counter({ name: 'media_bff_logins_total', help: 'Sign-ins started, by outcome', labelNames: ['outcome'], registers: [registry] })
  const callbacks = new Counter({ name: 'media_bff_callbacks_total', help: 'Authorization callbacks, by outcome', labelNames: ['outcome'], registers: [registry] })
  const refreshes = new Counter({ name: 'media_bff_token_refreshes_total', help: 'Token refreshes, by outcome (refreshed, reused, rejected, failed)', labelNames: ['outcome'], registers: [registry] })
  const refreshSeconds = new Histogram({ name: 'media_bff_token_refresh_duration_seconds', help: 'Time to obtain a refreshed token', labelNames: ['outcome'], buckets: LATENCY_BUCKETS, registers: [registry] })
  const lockWaits = new Histogram({ name: 'media_bff_refresh_lock_wait_seconds', help: 'Time spent waiting for another refresh of the same grant', buckets: LATENCY_BUCKETS, registers: [registry] })
  const registrations = new Counter({ name: 'media_bff_upload_registrations_total', help: 'Upload registrations, by outcome', labelNames: ['outcome'], registers: [registry] })
  const finishes = new Counter({ name: 'media_bff_upload_finishes_total', help: 'Upload finishes, by outcome', labelNames: ['outcome'], registers: [registry] })
  const relayed = new Counter({ name: 'media_bff_relayed_calls_total', help: 'Calls through the relay (/api/...), by operation and outcome (ok, not_modified, refused, upstream_error, upstream_timeout, unavailable)', labelNames: ['operation', 'outcome'], registers: [registry] })
  const sessionsEnded = new Counter({ name: 'media_bff_sessions_ended_total', help: 'Sessions ended, by reason (signed_out, expired, grant_gone, replaced, ended_by_person, other_sessions, operator, over_cap, anomaly)', labelNames: ['reason'], registers: [registry] })
  const cutOffs = new Counter({ name: 'media_bff_relayed_cut_offs_total', help: 'Relayed answers cut off after their status was sent, by operation and reason (deadline, malformed, upstream)', labelNames: ['operation', 'reason'], registers: [registry] })
  const webhooks = new Counter({ name: 'media_bff_webhooks_total', help: 'Webhooks of the media service, by outcome (accepted, duplicate, refused_body, refused_signature, refused_stale, refused_replay, refused_tenant, refused_size, rate_limited, queue_full, unavailable)', labelNames: ['outcome'], registers: [registry] })
  const followUps = new Counter({ name: 'media_bff_webhook_follow_ups_total', help: 'Webhook follow-ups, by outcome (announced, already_told, not_a_file, unknown_file, nobody_signed_in, unreadable; failed: tried again later; given_up)', labelNames: ['outcome'], registers: [registry] })
  const openStreams = new Gauge({ name: 'media_bff_event_streams', help: 'Live channels (GET /events) open on this instance', registers: [registry] })
  const delivered = new Counter({ name: 'media_bff_events_delivered_total', help: 'Live events written to a channel', registers: [registry] })
  const dropped = new Counter({ name: 'media_bff_event_streams_dropped_total', help: 'Live channels closed by media-bff, by reason (slow_reader, session_limit, session_ended, instance_full)', labelNames: ['reason'], registers: [registry] })
  let logLinesCounted = 0
  // The process's standard output drops what its reader does not take (src/log-destination.ts).
  registry.registerMetric(new Counter({
    name: 'media_bff_log_lines_dropped_total',
    help: 'Log lines let go because the reader of standard output did not take them',
    registers: [],
    collect () {
      const dropped = droppedLogLines()
      if (dropped > logLinesCounted) this.inc(dropped - logLinesCounted)
      logLinesCounted = dropped
    }
  }))
  const takeovers = new Counter({ name: 'media_bff_webhook_follow_up_takeovers_total', help: 'Webhook follow-ups another instance took and never finished (it stopped or crashed), taken over by this one', registers: [registry] })
  // The outcomes docker/prometheus/alerts.yml counts are series from the start, at zero: increase()
  // sees nothing of a series that first appears at 1, so the first refusal after a start would go
  // unseen.
  const fromZero = (counter: Counter<string>, label: string, values: string[]): void => { for (const value of values) counter.inc({ [label]: value }, 0) }
  fromZero(logins, 'outcome', ['redirected', 'refused_full'])
  fromZero(callbacks, 'outcome', ['signed_in', 'exchange_failed', 'unavailable', 'refused_full', 'insecure_transport', 'issuer_mismatch'])
  fromZero(refreshes, 'outcome', ['refreshed', 'reused', 'rejected', 'client_rejected', 'failed'])
  fromZero(webhooks, 'outcome', ['accepted', 'queue_full', 'unavailable', 'refused_signature', 'refused_stale'])
  fromZero(dropped, 'reason', ['slow_reader', 'session_limit', 'person_limit', 'session_ended', 'instance_full'])
  // On every relayed and upstream call, as request latency is on every request (below).
  const upstream = createDurationHistogram<'endpoint' | 'status'>({ name: 'media_bff_upstream_request_duration_seconds', help: 'Calls to the media service, by endpoint and status (0: no answer)', buckets: LATENCY_BUCKETS })
  registry.registerMetric(upstream.metric as unknown as Metric)
  const upstreamSeries = new Map<string, DurationSeries>()

  app.decorate('metrics', {
    login: (outcome) => logins.inc({ outcome }),
    callback: (outcome) => callbacks.inc({ outcome }),
    refresh: (outcome, seconds) => { refreshes.inc({ outcome }); refreshSeconds.observe({ outcome }, seconds) },
    lockWait: (seconds) => lockWaits.observe(seconds),
    registration: (outcome) => registrations.inc({ outcome }),
    finish: (outcome) => finishes.inc({ outcome }),
    upstreamCall: (endpoint, status, seconds) => {
      const key = `${endpoint} ${status}`
      let series = upstreamSeries.get(key)
      if (series === undefined) {
        series = upstream.series({ endpoint, status: String(status) })
        upstreamSeries.set(key, series)
      }
      series.observe(seconds)
    },
    relayed: (operation, status) => relayed.inc({ operation, outcome: relayOutcome(status) }),
    sessionsEnded: (reason, count) => { if (count > 0) sessionsEnded.inc({ reason }, count) },
    relayCutOff: (operation, reason) => cutOffs.inc({ operation, reason }),
    webhook: (outcome) => webhooks.inc({ outcome }),
    webhookFollowUp: (outcome) => followUps.inc({ outcome }),
    openStreams: (count) => openStreams.set(count),
    eventDelivered: () => delivered.inc(),
    streamDropped: (reason) => dropped.inc({ reason }),
    webhookTakeovers: (count) => takeovers.inc(count),
    gauge: (name, help, read) => {
      // prom-client calls collect on every scrape; `this` is the gauge itself.
      const gauge: Gauge = new Gauge({
        name,
        help,
        registers: [registry],
        async collect () {
          const value = await read()
          gauge.reset()
          if (value !== undefined) gauge.set(value)
        }
      })
    },
    gaugeByLabel: (name, help, label, read) => {
      const gauge: Gauge<string> = new Gauge({
        name,
        help,
        labelNames: [label],
        registers: [registry],
        async collect () {
          const values = await read()
          gauge.reset()
          for (const [key, value] of Object.entries(values)) gauge.set({ [label]: key }, value)
        }
      })
    }
  } satisfies Metrics)

  // One series per method, route pattern and status, found by one string key. Route patterns and
  // statuses are few, so the map stays small.
  const requestSeries = new Map<string, DurationSeries>()
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const key = `${request.method} ${reply.statusCode} ${route}`
    let series = requestSeries.get(key)
    if (series === undefined) {
      series = requests.series({ method: request.method, route, status_code: String(reply.statusCode) })
      requestSeries.set(key, series)
    }
    series.observe(reply.elapsedTime / 1000)
    done()
  })

  app.get('/metrics', {
    schema: {
      tags: ['operations'],
      operationId: 'getMetrics',
      summary: 'Prometheus metrics of this instance',
      response: { 200: text(['text/plain'], 'This instance\'s metrics, in the Prometheus text format'), ...refusals({ own: { 404: [OPERATORS_ONLY] } }) }
    },
    // Scraped every few seconds: never traced, as the probes are not.
    config: { operators: 'metrics', traced: false }
  }, async (_request, reply) => {
    return await reply.header('content-type', registry.contentType).send(await registry.metrics())
  })
}, { name: 'metrics', dependencies: ['config', 'gate'] })

/** A relayed call's outcome from media-bff's answer: a short, fixed set of label values. */
function relayOutcome (status: number): string {
  if (status === 304) return 'not_modified'
  if (status < 400) return 'ok'
  if (status === 502) return 'upstream_error'
  if (status === 504) return 'upstream_timeout'
  if (status >= 500) return 'unavailable'
  return 'refused'
}
