// The events the service sends outbound webhooks for, and what the emulator puts in them. The
// service does not publish the shape of `data`; the emulator's choice is the smallest that
// names the object and its state, so receivers fetch anything else from the API.
import type { Folder } from '../library/folder-tree.js'
import type { StoredFile } from '../upload/upload-store.js'

export const webhookEvents = [
  'file_upload', 'file_transcode', 'file_approval', 'file_comment', 'file_push', 'file_qc', 'file_transcribe', 'file_trash', 'folder_trash'
] as const

export type WebhookEvent = typeof webhookEvents[number]

/** The `api_version` of every delivery: the date of the interface the body follows. */
export const webhookApiVersion = '2024-06-01'

export function isWebhookEvent (value: unknown): value is WebhookEvent {
  return typeof value === 'string' && (webhookEvents as readonly string[]).includes(value)
}

/** `data` of the file events: the file as it is now. */
export function fileEventData (file: StoredFile): Record<string, unknown> {
  return { file_id: file.fileId, folder_id: file.folderId, title: file.title, status: file.status }
}

/** `data` of folder_trash. */
export function folderEventData (folder: Folder): Record<string, unknown> {
  return { folder_id: folder.folderId, name: folder.name }
}
