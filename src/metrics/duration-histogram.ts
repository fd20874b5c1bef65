// A latency histogram for the observation every request makes: its series are found by a handle
// kept by whoever observes, and an observation is a bucket search over numbers and three
// additions. prom-client's own Histogram checks and hashes the labels, and keys its buckets by
// the bound as a property name, on every observation; in `npm run bench` that was several
// microseconds of each request. Read by prom-client's registry like any of its metrics: the
// exposition is the same (`_bucket` with `le`, cumulative, then `_sum` and `_count`).

export interface DurationSeries {
  /** One duration, in seconds. */
  observe: (seconds: number) => void
}

export interface HistogramValue {
  metricName: string
  labels: Record<string, string | number>
  value: number
}

/** What prom-client's Registry reads from a metric (its get, reset and identity). */
export interface RegistryMetric {
  name: string
  help: string
  type: 'histogram'
  aggregator: 'sum'
  get: () => Promise<{ name: string, help: string, type: 'histogram', aggregator: 'sum', values: HistogramValue[] }>
  reset: () => void
}

export interface DurationHistogram<L extends string> {
  /** The series of these label values, made on first use. */
  series: (labels: Record<L, string>) => DurationSeries
  metric: RegistryMetric
}

interface Series {
  labels: Record<string, string>
  /** counts[i]: observations at most buckets[i]; the last is +Inf. Not cumulative. */
  counts: Float64Array
  sum: number
  count: number
}

export function createDurationHistogram<L extends string> ({ name, help, buckets }: { name: string, help: string, buckets: readonly number[] }): DurationHistogram<L> {
  if (buckets.some((bound, i) => i > 0 && !(bound > (buckets[i - 1] ?? bound)))) throw new RangeError('buckets must be increasing')
  const bounds = Float64Array.from(buckets)
  const bucketLabels: Array<number | string> = [...buckets, '+Inf']
  const all = new Map<string, Series>()

  const series = (labels: Record<L, string>): DurationSeries => {
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => a < b ? -1 : 1))
    let found = all.get(key)
    if (found === undefined) {
      found = { labels: { ...labels }, counts: new Float64Array(bounds.length + 1), sum: 0, count: 0 }
      all.set(key, found)
    }
    const held = found
    return {
      observe: (seconds) => {
        if (!Number.isFinite(seconds)) return
        let i = 0
        while (i < bounds.length && seconds > (bounds[i] as number)) i++
        held.counts[i] = (held.counts[i] as number) + 1
        held.sum += seconds
        held.count++
      }
    }
  }

  const values = (): HistogramValue[] => {
    const out: HistogramValue[] = []
    for (const { labels, counts, sum, count } of all.values()) {
      let cumulative = 0
      counts.forEach((inBucket, i) => {
        cumulative += inBucket
        out.push({ metricName: `${name}_bucket`, labels: { le: bucketLabels[i] ?? '+Inf', ...labels }, value: cumulative })
      })
      out.push({ metricName: `${name}_sum`, labels, value: sum })
      out.push({ metricName: `${name}_count`, labels, value: count })
    }
    return out
  }

  return {
    series,
    metric: {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
      // Handles stay valid: their series are emptied, not dropped.
      reset: () => {
        for (const held of all.values()) {
          held.counts.fill(0)
          held.sum = 0
          held.count = 0
        }
      }
    }
  }
}
