// A webhook of the media service, read as what it is: a hint from outside. Its signature covers
// only its timestamp and token (HMAC-SHA256 of timestamp + token with the endpoint's key), not
// its body, so nothing in `data` is believed: only an event name and an id to look up are kept,
// and whatever media-bff announces comes from reading the service itself (webhook-hints.ts).
import { jsonRecord } from '../media/json-record.js'

/** The service's documented events. */
export const WEBHOOK_EVENTS = ['file_upload', 'file_transcode', 'file_approval', 'file_comment', 'file_push', 'file_qc', 'file_transcribe', 'file_trash', 'folder_trash'] as const
export type WebhookEvent = typeof WEBHOOK_EVENTS[number]

export interface WebhookSignature {
  /** Unix seconds, as the service wrote them. */
  timestamp: string
  token: string
  signature: string
}

export interface WebhookHint {
  /** The same across the service's retries of one event. */
  id: string
  event: WebhookEvent
  signature: WebhookSignature
  /** The file the event is about, when `data` names one: to look up, never to believe. */
  fileId: number | undefined
}

export type WebhookReading = { ok: true, hint: WebhookHint } | { ok: false, reason: string }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function readWebhook (body: unknown): WebhookReading {
  const record = jsonRecord(body)
  if (record === undefined) return { ok: false, reason: 'the body is not a JSON object' }
  const signature = jsonRecord(record.signature)
  const timestamp = typeof signature?.timestamp === 'number' ? String(signature.timestamp) : signature?.timestamp
  const { token, signature: mac } = signature ?? {}
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'signature.timestamp is not Unix seconds' }
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{16,256}$/.test(token)) return { ok: false, reason: 'signature.token is missing or malformed' }
  if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/i.test(mac)) return { ok: false, reason: 'signature.signature is not a hex SHA-256' }
  if (typeof record.id !== 'string' || !UUID.test(record.id)) return { ok: false, reason: 'id is not a UUID' }
  if (typeof record.event !== 'string' || !(WEBHOOK_EVENTS as readonly string[]).includes(record.event)) return { ok: false, reason: 'event is not one the service sends' }
  const fileId = jsonRecord(record.data)?.file_id
  const id = typeof fileId === 'number' ? fileId : typeof fileId === 'string' && /^\d{1,15}$/.test(fileId) ? Number(fileId) : undefined
  return {
    ok: true,
    hint: {
      id: record.id.toLowerCase(),
      event: record.event as WebhookEvent,
      signature: { timestamp, token, signature: mac.toLowerCase() },
      fileId: id !== undefined && Number.isSafeInteger(id) && id >= 0 ? id : undefined
    }
  }
}
