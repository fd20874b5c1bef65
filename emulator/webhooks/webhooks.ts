// Outbound webhooks: an event of an account goes to each of that account's endpoints that takes
// it. A delivery has one id (a random UUID) for all its attempts; each attempt has a fresh
// timestamp, token and signature. An answer outside 2xx, a network error or a timeout (5 s) is
// retried up to three times, after the delays of webhookRetryDelaysMs. Sending never holds up
// or fails the API call behind the event: emit() only starts the delivery. stop() aborts
// attempts in flight and cancels the retries waiting.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createWebhookEndpoints, type WebhookEndpoint, type WebhookEndpoints } from './webhook-endpoints.js'
import { webhookApiVersion, type WebhookEvent } from './webhook-events.js'
import { createWebhookLog, type WebhookAttempt, type WebhookBody } from './webhook-log.js'
import { postWebhook, webhookDispatcher } from './webhook-post.js'
import { signatureBlock, type WebhookSignature } from './webhook-signature.js'

/** One delivery to one endpoint; the test hook's may carry parts that replace the computed ones. */
export interface WebhookDelivery {
  endpoint: WebhookEndpoint
  event: WebhookEvent
  data: unknown
  id?: string
  /** Given parts of the signature block; the others are computed (with `key`, if given). */
  signature?: Partial<WebhookSignature>
  key?: string
}

export interface Webhooks {
  endpoints: WebhookEndpoints
  /** Starts delivering the event to the account's endpoints that take it; never waits, never throws. */
  emit: (user: string, event: WebhookEvent, data: unknown) => void
  /** One attempt, now, without retries: the status the endpoint answered (0 without one). */
  send: (delivery: WebhookDelivery) => Promise<number>
  sent: () => WebhookAttempt[]
  stop: () => Promise<void>
}

export function createWebhooks (options: { endpoints: WebhookEndpoint[], retryDelaysMs: number[] }): Webhooks {
  const endpoints = createWebhookEndpoints(options.endpoints)
  const log = createWebhookLog()
  const dispatcher = webhookDispatcher()
  const stopping = new AbortController()
  const deliveries = new Set<Promise<void>>()

  const attempt = async (delivery: WebhookDelivery, attemptNumber: number, id: string): Promise<number> => {
    const { endpoint, event, data } = delivery
    const signature = signatureBlock(delivery.key ?? endpoint.key, delivery.signature)
    const body: WebhookBody = { signature, id, event, api_version: webhookApiVersion, data }
    const status = await postWebhook(dispatcher, endpoint.url, body, stopping.signal)
    // An attempt cut off by stop() was never answered; nobody is left to read about it.
    if (!stopping.signal.aborted) log.record({ id, event, user: endpoint.user, url: endpoint.url, attempt: attemptNumber, status, body })
    return status
  }

  const deliver = async (endpoint: WebhookEndpoint, event: WebhookEvent, data: unknown): Promise<void> => {
    const id = randomUUID()
    for (let attemptNumber = 1; ; attemptNumber++) {
      const status = await attempt({ endpoint, event, data }, attemptNumber, id)
      const delayMs = options.retryDelaysMs[attemptNumber - 1]
      if ((status >= 200 && status < 300) || delayMs === undefined || stopping.signal.aborted) return
      // Unref'd: a retry waiting keeps no process alive; stop() cancels it.
      await sleep(delayMs, undefined, { signal: stopping.signal, ref: false })
    }
  }

  const track = (work: Promise<void>): void => {
    const settled = work.catch(() => {}).finally(() => { deliveries.delete(settled) })
    deliveries.add(settled)
  }

  return {
    endpoints,
    emit (user, event, data) {
      if (stopping.signal.aborted) return
      for (const endpoint of endpoints.of(user, event)) track(deliver(endpoint, event, data))
    },
    async send (delivery) {
      if (stopping.signal.aborted) return 0
      return await attempt(delivery, 1, delivery.id ?? randomUUID())
    },
    sent: () => log.list(),
    async stop () {
      stopping.abort()
      await Promise.allSettled([...deliveries])
      await dispatcher.destroy()
    }
  }
}
