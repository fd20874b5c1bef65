// A file as the media service describes it (finish answers, a file view), read as untrusted
// input: only the documented fields, as plain values, file links only on the tenant's origin.
import { jsonRecord } from './json-record.js'
import { plainText } from '../safe-text.js'

export interface MediaFileView {
  file_id?: number | string
  folder_id?: number | string
  title?: string
  filename?: string
  size?: number
  /** Where the service is with it: `processing` until it can be played, then `ready`. */
  status?: string
  urls?: { file?: string }
}

const MAX_TEXT = 1024

export function readMediaFile (value: unknown, tenantOrigin: string): MediaFileView {
  const file = jsonRecord(value) ?? {}
  const out: MediaFileView = {}
  const fileId = id(file.file_id)
  const folderId = id(file.folder_id)
  if (fileId !== undefined) out.file_id = fileId
  if (folderId !== undefined) out.folder_id = folderId
  const title = text(file.title)
  const filename = text(file.filename)
  if (title !== undefined) out.title = title
  if (filename !== undefined) out.filename = filename
  if (typeof file.size === 'number' && Number.isSafeInteger(file.size) && file.size >= 0) out.size = file.size
  if (typeof file.status === 'string' && /^[a-z_]{1,32}$/.test(file.status)) out.status = file.status
  const link = onOrigin(jsonRecord(file.urls)?.file, tenantOrigin)
  if (link !== undefined) out.urls = { file: link }
  return out
}

/** Ids are numeric; some clients (and perhaps the service) send them as strings. */
function id (value: unknown): number | string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value
  if (typeof value === 'string' && /^\d{1,18}$/.test(value)) return value
  return undefined
}

/** Titles and file names are shown to people: plain text only (src/safe-text.ts). */
function text (value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_TEXT ? plainText(value, MAX_TEXT) : undefined
}

/** A link the browser may be given: on the tenant's own origin, nothing else. */
function onOrigin (value: unknown, origin: string): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined
  try {
    const url = new URL(value)
    return url.origin === origin && url.username === '' && url.password === '' ? url.href : undefined
  } catch {
    return undefined
  }
}
