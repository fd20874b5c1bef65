// The webhook endpoints, per account: on the service an operator configures them in one
// account's security context, and that account's events go to them. Each has its own key, which
// signs what is sent to it. Endpoints come from the options (or EMULATOR_WEBHOOK_URL and _KEY)
// and from the test hooks; both are checked by parseWebhookEndpoint.
import { badRequest } from '../http/emulator-error.js'
import { isAbsoluteHttpUrl } from '../http/absolute-url.js'
import { isWebhookEvent, webhookEvents, type WebhookEvent } from './webhook-events.js'

/** One endpoint as options and hooks give it. */
export interface WebhookEndpointInput {
  /** The account (fixture user) whose events go to it. */
  user: string
  /** http(s) URL the deliveries are POSTed to. */
  url: string
  /** HMAC key of the signatures sent to this endpoint. */
  key: string
  /** Events it takes. Default: all. */
  events?: string[]
}

export interface WebhookEndpoint {
  user: string
  url: string
  key: string
  events: WebhookEvent[]
}

export interface WebhookEndpoints {
  /** Adds the endpoint; one the account already has at the same URL is replaced. */
  add: (endpoint: WebhookEndpoint) => void
  clear: () => void
  /** Copies, in the order they were added. */
  list: () => WebhookEndpoint[]
  /** The account's endpoints (all, or those that take the event). */
  of: (user: string, event?: WebhookEvent) => WebhookEndpoint[]
}

const fields = ['user', 'url', 'key', 'events']

/** Checks every field; a problem is a 400 naming it (the options turn it into a start failure). */
export function parseWebhookEndpoint (input: unknown, userNames: string[]): WebhookEndpoint {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw badRequest('The webhook endpoint must be a JSON object { user, url, key, events? }.')
  const raw = input as Record<string, unknown>
  const unknown = Object.keys(raw).filter((key) => !fields.includes(key))
  if (unknown.length > 0) throw badRequest(`Unknown webhook field(s): ${unknown.join(', ')}; known are ${fields.join(', ')}.`)
  const { user, url, key } = raw
  if (typeof user !== 'string' || !userNames.includes(user)) throw badRequest(`user must be the name of a fixture user (${userNames.join(', ')}).`)
  if (!isAbsoluteHttpUrl(url)) throw badRequest('url must be an absolute http(s) URL without a fragment.')
  if (typeof key !== 'string' || key === '') throw badRequest('key must be a non-empty string.')
  return { user, url, key, events: parseEvents(raw.events) }
}

/** A list of event names; a url-encoded or multipart body may give one name, or several with commas. */
function parseEvents (value: unknown): WebhookEvent[] {
  if (value === undefined) return [...webhookEvents]
  const names = typeof value === 'string' ? value.split(',').map((name) => name.trim()) : value
  if (!Array.isArray(names) || names.length === 0 || !names.every(isWebhookEvent)) {
    throw badRequest(`events must be a non-empty list of ${webhookEvents.join(', ')}.`)
  }
  return [...new Set(names)]
}

export function createWebhookEndpoints (initial: WebhookEndpoint[] = []): WebhookEndpoints {
  let endpoints: WebhookEndpoint[] = []
  const copy = (endpoint: WebhookEndpoint): WebhookEndpoint => ({ ...endpoint, events: [...endpoint.events] })
  const add = (endpoint: WebhookEndpoint): void => {
    endpoints = [...endpoints.filter((known) => known.user !== endpoint.user || known.url !== endpoint.url), copy(endpoint)]
  }
  for (const endpoint of initial) add(endpoint)
  return {
    add,
    clear () { endpoints = [] },
    list: () => endpoints.map(copy),
    of: (user, event) => endpoints.filter((endpoint) => endpoint.user === user && (event === undefined || endpoint.events.includes(event))).map(copy)
  }
}
