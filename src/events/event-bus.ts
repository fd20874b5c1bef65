// Live messages between media-bff's instances: in one process without Redis; over Redis pub/sub
// (one channel per deployment, REDIS_KEY_PREFIX) with it, so an event raised on one instance
// reaches the streams open on every other. Messages are hints for open pages: one lost while
// Redis is away is not kept (a page that reconnects asks for the state again, 'resync').
import type { Cluster, Redis } from 'ioredis'
import { readLiveMessage, type LiveMessage } from './live-message.js'

export interface EventBus {
  publish: (message: LiveMessage) => Promise<void>
  /** Every message, from any instance (this one included); returns the unsubscribing function. */
  subscribe: (listener: (message: LiveMessage) => void) => () => void
  close: () => Promise<void>
}

function listenerSet () {
  const listeners = new Set<(message: LiveMessage) => void>()
  return {
    add: (listener: (message: LiveMessage) => void): () => void => {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    },
    tell: (message: LiveMessage): void => { for (const listener of listeners) listener(message) }
  }
}

export function createMemoryEventBus (): EventBus {
  const listeners = listenerSet()
  return {
    publish: async (message) => { queueMicrotask(() => { listeners.tell(message) }) },
    subscribe: listeners.add,
    close: async () => {}
  }
}

/**
 * `client`: the store's connection, which publishes. Subscribing needs a connection of its own
 * (a subscribed connection sends nothing else); it subscribes whenever it is (re)connected.
 */
export function createRedisEventBus (client: Redis | Cluster, channel: string): EventBus {
  const listeners = listenerSet()
  // A single server's connection subscribes on every 'ready' below, its refusal handled. ioredis
  // would also resubscribe by itself on reconnecting, and leave that call's refusal unhandled (a
  // connection dropping again at that moment then ended the process: seen in a test stopping its
  // Redis). A Cluster's nodes resubscribe as the Cluster client arranges.
  const subscriber = client.isCluster ? client.duplicate() : (client as Redis).duplicate({ autoResubscribe: false })
  subscriber.on('error', () => {})
  subscriber.on('ready', () => { subscriber.subscribe(channel).catch(() => {}) })
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return
    const message = readLiveMessage(text)
    if (message !== undefined) listeners.tell(message)
  })
  return {
    publish: async (message) => { await client.publish(channel, JSON.stringify(message)) },
    subscribe: listeners.add,
    close: async () => { subscriber.disconnect() }
  }
}
