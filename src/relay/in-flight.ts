// Relayed calls one person has in flight on this instance, capped: a user who opens many slow
// calls (or a page stuck in a loop) holds upstream connections and relay work, and the cap keeps
// that to their own share. In memory on purpose: it bounds this instance's work, which is what
// it protects, and costs no store round trip.

export interface InFlightLimit {
  /** Takes a slot for `key`; false when `key` already holds `max`. */
  enter: (key: string) => boolean
  /** Gives a slot back; every successful enter is followed by exactly one leave. */
  leave: (key: string) => void
  /** Slots `key` holds now. */
  held: (key: string) => number
}

export function createInFlightLimit (max: number): InFlightLimit {
  const counts = new Map<string, number>()
  return {
    enter (key) {
      const count = counts.get(key) ?? 0
      if (count >= max) return false
      counts.set(key, count + 1)
      return true
    },
    leave (key) {
      const count = counts.get(key) ?? 0
      // Keys go when their last call ends, so the map holds only people with calls running.
      if (count <= 1) counts.delete(key)
      else counts.set(key, count - 1)
    },
    held: (key) => counts.get(key) ?? 0
  }
}
