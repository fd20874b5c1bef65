// The shapes the browser module hands a page. Those of media-bff's JSON are the contract's, written
// from the very schemas its routes answer with (contract.ts, from src/contract/); the media
// service's own answers are read without trusting their shape: every field may be missing. What
// is only the module's (its options, what an upload answers) is declared here.
import type { Folder, FolderContents as ListedContents, MediaFile, StoredFile } from './contract.js'

export type * from './contract.js'

/**
 * A folder's contents as folders.contents() gives them: `folders` and `files` are always arrays
 * (empty when not asked for, or when the service left them out).
 */
export interface FolderContents extends ListedContents {
  folders: Folder[]
  files: MediaFile[]
}

/** The upload host's answer; with hide_response (always on via media-bff) just the status. */
export interface DirectUploadResult {
  status: string
  /**
   * For a registration the service finishes by itself (autofinish), the client's uploadFile then
   * finishes it through media-bff: the stored files, as the service describes them. Absent when
   * that finish failed: the file is stored all the same, and the page learns of it from the
   * service's own listing rather than from its live channel.
   */
  files?: StoredFile[]
  [field: string]: unknown
}

/** What every call to media-bff may be given. */
export interface CallOptions {
  /** Cancels the call: it rejects with MediaBffError `aborted`. */
  signal?: AbortSignal
  /** Gives up after this many milliseconds (MediaBffError `timeout`); default the client's timeoutMs. */
  timeoutMs?: number
  /**
   * `popup`: when the call is refused for a permission the person may still give (403
   * `insufficient_scope`), ask for it in a popup (access.ts, askInPopup) and, once given, make the
   * same call once more; the page stays as it is, files picked and all. For a relayed call and an
   * upload's registration; make the call from the person's click, as a popup needs. A blocked
   * popup goes to the consent by navigation; any other answer rejects with the refusal.
   */
  consent?: 'popup'
}

export interface UploadFileOptions {
  title?: string
  /** Overrides the registration's folder for this file. */
  folderId?: number
  /** The stored file name when `file` is a Blob without one. */
  filename?: string
  /**
   * Called as bytes leave the browser; called with (total, total) once the host accepted the
   * file. Given, the browser preflights the upload (CORS OPTIONS to the upload host) first.
   */
  onProgress?: (loaded: number, total: number) => void
  signal?: AbortSignal
  /** Gives up after this many milliseconds (MediaBffError `timeout`); default none: big files take their time. */
  timeoutMs?: number
}

export interface ShareLinkOptions {
  /** Whether the link lets people download the files. */
  download?: boolean
  /** When the link stops working: a Date, Unix seconds, or `YYYY-MM-DD`. */
  expires?: Date | number | string
}
