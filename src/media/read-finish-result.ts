// The answer to finishing an upload (`DELETE {api.finish}`), read as untrusted
// input: only the documented fields, as plain values, and file links only on the tenant's origin.
import { UpstreamError } from './upstream-error.js'
import { jsonRecord } from './json-record.js'
import { readMediaFile, type MediaFileView } from './read-media-file.js'

export type FinishedFile = MediaFileView

export interface FinishResult {
  status: string
  files: FinishedFile[]
}

const MAX_FILES = 10_000

export function readFinishResult (body: unknown, tenantOrigin: string): FinishResult {
  const record = jsonRecord(body)
  if (record === undefined || typeof record.status !== 'string' || record.status.length > 64) {
    throw new UpstreamError('malformed', 'finish', 'finish answered without a status')
  }
  const files = Array.isArray(record.files) ? record.files.slice(0, MAX_FILES) : []
  return { status: record.status, files: files.map((file) => readMediaFile(file, tenantOrigin)) }
}
