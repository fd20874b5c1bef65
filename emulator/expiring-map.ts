// A Map whose records are forgotten at a time of their own (a token some minutes after it
// expired, a registration a day after). A record past that time is dropped when it is looked
// up, and the others are swept at most once per sweep interval, on a write: a call's work does
// not grow with the number of records held, which a full sweep on every call made it do.
export interface ExpiringMapWork {
  /** Full sweeps so far. */
  sweeps: number
  /** Records those sweeps looked at. */
  visited: number
}

export interface ExpiringMap<K, V> {
  /** The record, unless its time to be forgotten has come. */
  get: (key: K) => V | undefined
  set: (key: K, value: V, forgetAt: number) => void
  /** Every record not yet forgotten, in insertion order. */
  values: () => V[]
  /** What sweeping has cost so far (test/emulator/store-cost.test.ts). */
  work: () => ExpiringMapWork
}

interface ExpiringMapOptions<K, V> {
  sweepEveryMs: number
  /** The clock; tests pass their own. */
  now?: () => number
  /** Called for each record forgotten, so an index kept beside the map can follow. */
  onForget?: (key: K, value: V) => void
}

export function createExpiringMap<K, V> (options: ExpiringMapOptions<K, V>): ExpiringMap<K, V> {
  const now = options.now ?? Date.now
  const records = new Map<K, { value: V, forgetAt: number }>()
  const work: ExpiringMapWork = { sweeps: 0, visited: 0 }
  let lastSweep = now()

  const forget = (key: K, value: V): void => {
    records.delete(key)
    options.onForget?.(key, value)
  }

  const sweep = (at: number): void => {
    lastSweep = at
    work.sweeps += 1
    for (const [key, record] of records) {
      work.visited += 1
      if (record.forgetAt <= at) forget(key, record.value)
    }
  }

  return {
    get (key) {
      const record = records.get(key)
      if (record === undefined) return undefined
      if (record.forgetAt > now()) return record.value
      forget(key, record.value)
      return undefined
    },
    set (key, value, forgetAt) {
      const at = now()
      if (at - lastSweep >= options.sweepEveryMs) sweep(at)
      records.set(key, { value, forgetAt })
    },
    values () {
      const at = now()
      const live: V[] = []
      for (const record of records.values()) if (record.forgetAt > at) live.push(record.value)
      return live
    },
    work: () => ({ ...work })
  }
}
