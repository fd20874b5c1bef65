// The shapes media-bff and the media service answer with, as far as they are known. The
// service's own shapes are not published: every field of theirs may be missing.

export interface SessionUser {
  id: string | null
  name: string | null
  email: string | null
}

export interface SignedInSession {
  authenticated: true
  user: SessionUser
  tenant: string
  /** The scopes the user granted, e.g. `['basic', 'user.info', 'upload']`. */
  scopes: string[]
  /** ISO date when the session ends unless used again: the earlier of the two below. */
  expires_at: string
  /** ISO date when the idle timeout ends it; every call moves it on. */
  idle_expires_at: string
  /** ISO date when it ends in any case, however busy. */
  absolute_expires_at: string
  reauth_required: boolean
}

export interface SignedOutSession {
  authenticated: false
  login_url: string
}

export type Session = SignedInSession | SignedOutSession

/** One of the signed-in person's sessions (GET /auth/sessions). */
export interface SessionListItem {
  /** Opaque: pass it to sessions.end. */
  id: string
  created_at: string
  last_active_at: string
  /** A short description from its browser, e.g. "Firefox on Windows". */
  device: string
  /** The network it began on: an IPv4 /24 or an IPv6 /48. */
  network: string
  /** The session of this browser. */
  current: boolean
}

/** Limits asked of the media service for one registration (media-bff may cap them further). */
export interface UploadRegistrationOptions {
  max_filesize?: number
  max_files?: number
  max_size?: number
  file_extensions?: string[] | string
  no_transcode?: boolean
  /**
   * Leave on (the default) for one file: the service finishes the upload once the file is stored,
   * and the client's uploadFile finishes it through media-bff too, so the person's pages hear of
   * the file. Turn off for a batch and call finishUpload after it.
   */
  autofinish?: boolean
}

/** What POST /uploads/register answers: a pre-authorized upload address and how to finish. */
export interface UploadRegistration {
  ulid: string
  /** Unix time in seconds. */
  expires: number
  expires_in: number
  /** Signed URL on the upload host; needs no credentials. */
  url_upload_direct: string
  api: { rel?: string, upload?: string, finish: string }
  /** media-bff's path that finishes this upload for the session that registered it. */
  finish_url: string
  /** Whether the service finishes it by itself after the file (UploadRegistrationOptions.autofinish). */
  autofinish?: boolean
}

/** A file the finished upload stored: the media service describes it as any other file. */
export type StoredFile = MediaFile

export interface FinishResult {
  status: string
  files: StoredFile[]
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
}

export interface UploadFileOptions {
  title?: string
  /** Overrides the registration's folder for this file. */
  folderId?: number
  /** The stored file name when `file` is a Blob without one. */
  filename?: string
  /** Called as bytes leave the browser; called with (total, total) once the host accepted the file. */
  onProgress?: (loaded: number, total: number) => void
  signal?: AbortSignal
  /** Gives up after this many milliseconds (MediaBffError `timeout`); default none: big files take their time. */
  timeoutMs?: number
}

/** A folder or file id: a whole number, 0 or more (0 is the home folder). */
export type MediaId = number | string

/**
 * Links in relayed answers. media-bff rewrites those that pointed at the media service's /api/
 * to its own `{PUBLIC_URL}/api/` (the typed calls take ids instead); check any link with
 * safeHttpUrl before it goes into an href.
 */
export interface ApiLinks {
  self?: string
  contents?: string
  share?: string
  [rel: string]: string | undefined
}

/**
 * The media service's answers as far as they are known: every field may be missing (the
 * service's shapes are not published), so read each one as optional.
 */
export interface MediaUserInfo {
  user_id?: MediaId
  username?: string
  name?: string
  email?: string
  /** The scopes the account is entitled to (what it could grant), not what this session granted. */
  scopes?: string[]
}

export interface Folder {
  folder_id?: MediaId
  name?: string
  /** null for the home folder (0). */
  parent_id?: MediaId | null
  created?: string | number
  folder_count?: number
  file_count?: number
  api?: ApiLinks
}

export interface MediaFile {
  file_id?: MediaId
  folder_id?: MediaId
  title?: string
  filename?: string
  size?: number
  mime_type?: string
  created?: string | number
  /** `processing` until the service has transcoded it (it cannot be played or embedded yet), then `ready`. */
  status?: string
  urls?: { file?: string, [kind: string]: string | undefined }
  api?: ApiLinks
}

/** A folder's contents; `folders` and `files` are always arrays (empty when not asked for). */
export interface FolderContents {
  folder_id?: MediaId
  folders: Folder[]
  files: MediaFile[]
}

/** How a file or folder is shared: its public page and the HTML to embed it. */
export interface ShareInfo {
  file_id?: MediaId
  folder_id?: MediaId
  url?: string
  embed?: string
  /** For a file: its direct link (`objects.file.url`), through media-bff's /api/ when it is an API link. */
  objects?: { file?: { url?: string } }
}

export interface ShareLink {
  status?: string
  /** The link to hand out. */
  link?: string
  files?: MediaId[]
  download?: boolean
  /** Unix seconds or a date, as the service says it; null or missing when it never expires. */
  expires?: number | string | null
}

export interface ShareLinkOptions {
  /** Whether the link lets people download the files. */
  download?: boolean
  /** When the link stops working: a Date, Unix seconds, or `YYYY-MM-DD`. */
  expires?: Date | number | string
}

/** oEmbed (https://oembed.com) description of a shared file. */
export interface OEmbed {
  type?: string
  version?: string
  title?: string
  html?: string
  width?: number
  height?: number
  provider_name?: string
  thumbnail_url?: string
}
