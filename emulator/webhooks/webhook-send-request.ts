// The test hook's one-off delivery (POST /__emulator/webhooks/send, sendWebhook()): to one of
// an account's endpoints, now, once. Any field given replaces the one the emulator would
// compute, so a test can forge a signature, replay an old id or token, or send a stale
// timestamp, and see that its receiver refuses them.
import { badRequest } from '../http/emulator-error.js'
import type { WebhookEndpoints } from './webhook-endpoints.js'
import { isWebhookEvent, webhookEvents } from './webhook-events.js'
import type { WebhookDelivery } from './webhooks.js'

export interface WebhookSendSpec {
  /** The account; the delivery goes to its endpoint at `url`, or to its first endpoint. */
  user: string
  url?: string
  event: string
  data: unknown
  /** Defaults: a new UUID; now; a new token; the signature of timestamp + token with `key`. */
  id?: string
  timestamp?: string
  token?: string
  signature?: string
  /** Signs with this key instead of the endpoint's (a forgery that is well formed). */
  key?: string
}

const fields = ['user', 'url', 'event', 'data', 'id', 'timestamp', 'token', 'signature', 'key']

export function parseWebhookSend (input: unknown, userNames: string[], endpoints: WebhookEndpoints): WebhookDelivery {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw badRequest('The delivery must be a JSON object { user, url?, event, data, id?, timestamp?, token?, signature?, key? }.')
  const raw = input as Record<string, unknown>
  const unknown = Object.keys(raw).filter((key) => !fields.includes(key))
  if (unknown.length > 0) throw badRequest(`Unknown delivery field(s): ${unknown.join(', ')}; known are ${fields.join(', ')}.`)
  const { user, url, event, data } = raw
  if (typeof user !== 'string' || !userNames.includes(user)) throw badRequest(`user must be the name of a fixture user (${userNames.join(', ')}).`)
  if (url !== undefined && typeof url !== 'string') throw badRequest('url must be a string.')
  if (!isWebhookEvent(event)) throw badRequest(`event must be one of ${webhookEvents.join(', ')}.`)
  if (data === undefined) throw badRequest('data is required (any JSON value).')
  const text = (name: string): string | undefined => {
    const value = raw[name]
    if (value !== undefined && typeof value !== 'string') throw badRequest(`${name} must be a string.`)
    return value
  }
  const [id, timestamp, token, signature, key] = ['id', 'timestamp', 'token', 'signature', 'key'].map(text)
  if (key === '') throw badRequest('key must be a non-empty string.')
  const candidates = endpoints.of(user)
  const endpoint = url === undefined ? candidates[0] : candidates.find((known) => known.url === url)
  if (endpoint === undefined) {
    throw badRequest(url === undefined ? `${user} has no webhook endpoint; add one first.` : `${user} has no webhook endpoint at ${url}; add it first.`)
  }
  const delivery: WebhookDelivery = { endpoint, event, data }
  if (id !== undefined) delivery.id = id
  if (key !== undefined) delivery.key = key
  const given = Object.fromEntries(Object.entries({ timestamp, token, signature }).filter(([, value]) => value !== undefined))
  if (Object.keys(given).length > 0) delivery.signature = given
  return delivery
}
