// Typed listeners for the module's event sources (the session watch, the live channel): `on`
// returns the function that removes the listener, `emit` calls each listener of one event type.
export function listenerRegistry<Events> () {
  const listeners = new Map<keyof Events, Set<(event: never) => void>>()
  return {
    on <K extends keyof Events>(type: K, listener: (event: Events[K]) => void): () => void {
      const set = listeners.get(type) ?? new Set()
      listeners.set(type, set)
      set.add(listener as (event: never) => void)
      return () => { set.delete(listener as (event: never) => void) }
    },
    emit <K extends keyof Events>(type: K, event: Events[K]): void {
      for (const listener of listeners.get(type) ?? []) (listener as (event: Events[K]) => void)(event)
    }
  }
}
