// The session as one value a UI framework holds as it is: React's useSyncExternalStore (subscribe
// and getSnapshot), a Svelte store (`$session`: subscribe calls its subscriber at once with the
// value and returns the unsubscribing function), a Vue ref set from subscribe. Fed by a session
// watch (session-watch.ts), which runs while anyone subscribes: it asks media-bff when it starts
// and whenever the tab is looked at again, and hears of sign-outs in this browser's other tabs.
import type { SessionWatch, SessionWatchOptions } from './session-watch.js'
import type { Session } from './types.js'

export interface SessionStore {
  /**
   * Calls `listener` now with the session as known (undefined until media-bff has answered), then
   * after every change; returns the function that stops it. The first subscriber starts the
   * watching, and it stops once the last has gone.
   */
  subscribe: (listener: (session: Session | undefined) => void) => () => void
  /** The session as last known: the very same object until it changes, as useSyncExternalStore needs. */
  getSnapshot: () => Session | undefined
  /** useSyncExternalStore's third argument for server rendering: not known there. */
  getServerSnapshot: () => undefined
}

/** What the store needs of the client: MediaBffClient has it. */
export interface SessionSource {
  watchSession: (options?: SessionWatchOptions) => SessionWatch
}

/** One store per page is enough: every component subscribes to the same one. */
export function createSessionStore (client: SessionSource, options?: SessionWatchOptions): SessionStore {
  const listeners = new Set<(session: Session | undefined) => void>()
  let snapshot: Session | undefined
  let watch: SessionWatch | undefined

  const take = (next: Session): void => {
    // Equal content keeps the old object: a new reference would render again for nothing.
    if (snapshot !== undefined && JSON.stringify(snapshot) === JSON.stringify(next)) return
    snapshot = next
    for (const listener of [...listeners]) listener(snapshot)
  }
  const start = (): void => {
    const started = client.watchSession(options)
    watch = started
    started.on('change', ({ session }) => { take(session) })
    // A failed check leaves the snapshot as it was; the watch asks again when the tab is looked at.
    started.check().catch(() => {})
  }
  /**
   * Stops once nobody listens, a moment later: React's StrictMode, and a component replaced by
   * another, unsubscribe and subscribe again at once, which should not ask media-bff again.
   */
  const stopIfUnused = (): void => {
    queueMicrotask(() => {
      if (listeners.size > 0 || watch === undefined) return
      watch.stop()
      watch = undefined
    })
  }

  return {
    subscribe: (listener) => {
      // Held by a wrapper: the same function subscribed twice is two subscriptions.
      const subscription = (session: Session | undefined): void => { listener(session) }
      listeners.add(subscription)
      if (watch === undefined) start()
      listener(snapshot)
      return () => {
        if (!listeners.delete(subscription)) return
        if (listeners.size === 0) stopIfUnused()
      }
    },
    getSnapshot: () => snapshot,
    getServerSnapshot: () => undefined
  }
}
