// Both backends accept the same TTLs: a positive, finite number of milliseconds, rounded up to a
// whole millisecond (Redis PX takes integers; rounding down could turn 0.5 ms into "forever").
// A bad TTL is a programming error, so it is a RangeError and not a StoreUnavailableError.
export function wholeTtlMs (ttlMs: number): number {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive finite number of milliseconds, got ${String(ttlMs)}`)
  }
  return Math.ceil(ttlMs)
}
