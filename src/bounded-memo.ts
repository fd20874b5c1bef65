// A small bounded memo for pure, costly functions on the request path (verifying a cookie
// signature, opening a sealed record): the same input always gives the same output, so the work
// is done once per distinct input. The oldest entry goes when the memo is full, so it never
// grows past `maxEntries`.

export interface BoundedMemo<V> {
  get: (key: string) => V | undefined
  set: (key: string, value: V) => void
  readonly size: number
}

export function createBoundedMemo<V> (maxEntries: number): BoundedMemo<V> {
  const entries = new Map<string, V>()
  return {
    get: (key) => entries.get(key),
    set (key, value) {
      if (entries.size >= maxEntries && !entries.has(key)) {
        const oldest = entries.keys().next().value
        if (oldest !== undefined) entries.delete(oldest)
      }
      entries.set(key, value)
    },
    get size () { return entries.size }
  }
}
