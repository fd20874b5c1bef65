// src/metrics/duration-histogram.ts against prom-client's own Histogram: for any observations,
// Prometheus reads exactly the same text from either.
import t from 'tap'
import fc from 'fast-check'
import { Histogram, Registry, type Metric } from 'prom-client'
import { createDurationHistogram } from '../../src/metrics/duration-histogram.js'

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const NAME = 'test_request_duration_seconds'
type Label = 'method' | 'route' | 'status_code'

const observation = fc.record({
  labels: fc.record({ method: fc.constantFrom('GET', 'POST'), route: fc.constantFrom('/a', '/b/:id', 'unmatched'), status_code: fc.constantFrom('200', '404', '503') }),
  // Bounds themselves included: a value equal to a bound is counted in that bucket.
  seconds: fc.oneof(fc.constantFrom(...BUCKETS, 0, 20), fc.double({ min: 0, max: 30, noNaN: true }))
})

t.test('the exposition is prom-client\'s, observation for observation', async (t) => {
  await fc.assert(fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
    const theirs = new Registry()
    const reference = new Histogram<Label>({ name: NAME, help: 'h', labelNames: ['method', 'route', 'status_code'], buckets: BUCKETS, registers: [theirs] })
    const ours = new Registry()
    const histogram = createDurationHistogram<Label>({ name: NAME, help: 'h', buckets: BUCKETS })
    ours.registerMetric(histogram.metric as unknown as Metric)
    for (const { labels, seconds } of observations) {
      reference.observe(labels, seconds)
      histogram.series(labels).observe(seconds)
    }
    return await ours.metrics() === await theirs.metrics()
  }), { numRuns: 200 })
})

t.test('a series handle keeps counting into one series; reset empties, handles stay valid', async (t) => {
  const histogram = createDurationHistogram<Label>({ name: NAME, help: 'h', buckets: BUCKETS })
  const a = histogram.series({ method: 'GET', route: '/a', status_code: '200' })
  const again = histogram.series({ status_code: '200', route: '/a', method: 'GET' })
  a.observe(0.002)
  again.observe(3)
  a.observe(Number.NaN)
  const count = async (): Promise<number | undefined> => (await histogram.metric.get()).values.find((v) => v.metricName === `${NAME}_count`)?.value
  t.equal(await count(), 2, 'the same labels in any order are one series; a non-finite value is not counted')
  histogram.metric.reset()
  t.equal(await count(), 0)
  a.observe(0.5)
  t.equal(await count(), 1)
  t.throws(() => createDurationHistogram({ name: 'x', help: 'x', buckets: [1, 1] }), RangeError)
})
