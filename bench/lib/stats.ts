// Small statistics for latency samples and repeated runs.

/** The q-quantile (0..1) of ascending `sorted`, nearest-rank. */
export function quantile (sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[rank] as number
}

export function median (values: number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5)
}

export const round = (value: number, digits = 2): number => Number.isFinite(value) ? Number(value.toFixed(digits)) : value
