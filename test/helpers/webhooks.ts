// A webhook as the media service signs it (docs/reference/http-api.md, "Live updates"): a fresh
// timestamp and token, the HMAC of both with the endpoint's key, and a new id unless one is given
// (a retry keeps its id).
import { randomUUID } from 'node:crypto'
import { signatureOf } from '../../src/webhooks/webhook-signature.js'

export interface SignedWebhookParts {
  id?: string
  event?: string
  fileId?: number
}

export function signedWebhook (key: string, { id = randomUUID(), event = 'file_transcode', fileId = 1 }: SignedWebhookParts = {}): string {
  const timestamp = String(Math.floor(Date.now() / 1000))
  const token = randomUUID().replaceAll('-', '')
  return JSON.stringify({ signature: { timestamp, token, signature: signatureOf(key, timestamp, token) }, id, event, api_version: '2024-06-01', data: { file_id: fileId } })
}
