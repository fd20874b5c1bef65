/**
 * media-bff browser client: a small, dependency-free module a website copies next to its own
 * scripts. It talks to media-bff (same site, cookie session) for sign-in state, upload
 * registrations and the media service operations media-bff relays under /api/ (folders, files,
 * sharing), and posts files straight to the media service's upload host. The page never holds an
 * OAuth token: media-bff keeps them, the browser only has its HttpOnly session cookie.
 *
 * @example
 * import { createMediaBffClient, MediaBffError } from './media-bff-client.js'
 *
 * const bff = createMediaBffClient()
 * const session = await bff.getSession()
 * if (!session.authenticated) location.assign(bff.loginUrl({ returnTo: location.pathname }))
 * try {
 *   const registration = await bff.registerUpload({ folderId: 0, options: { autofinish: false } })
 *   await bff.uploadFile(registration, file, { onProgress: (loaded, total) => console.log(loaded / total) })
 *   const { files } = await bff.finishUpload(registration)
 * } catch (error) {
 *   if (error instanceof MediaBffError && error.reauthorizeUrl !== undefined) location.assign(error.reauthorizeUrl)
 * }
 * const { folders, files } = await bff.folders.contents(0)      // GET /api/folders/0/contents
 * const shared = await bff.files.shareLink([12, 13], { download: true })
 * const href = safeHttpUrl(shared.link)                          // check before it goes in an href
 */

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
  /** ISO date when the session ends unless used again. */
  expires_at: string
  reauth_required: boolean
}

export interface SignedOutSession {
  authenticated: false
  login_url: string
}

export type Session = SignedInSession | SignedOutSession

/** Limits asked of the media service for one registration (media-bff may cap them further). */
export interface UploadRegistrationOptions {
  max_filesize?: number
  max_files?: number
  max_size?: number
  file_extensions?: string[] | string
  no_transcode?: boolean
  /** Leave on (the default) for one file; turn off for a batch and call finishUpload after it. */
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
  [field: string]: unknown
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

/**
 * What the media service said when it refused a relayed call (media-bff passes it on). Every
 * field is the service's text, untrusted: media-bff strips control and bidirectional characters
 * and caps each at 300 characters, but it may still hold markup. Show it with `textContent`,
 * never as HTML (`innerHTML`).
 */
export interface UpstreamFailure {
  endpoint?: string
  status?: number
  error?: string
  error_description?: string
  /** Meant for people; this module uses it as the error's message when present. */
  user_message?: string
}

export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * Every failure of this client. `code` is media-bff's error code (`login_required`,
 * `reauth_required`, `insufficient_scope`, `scope_not_granted`, `csrf_failed`, `not_found`,
 * `invalid_request`, `upstream_refused`, `upstream_error`, `unavailable`, ...), the upload
 * host's `error` for a refused file, or one of this module's own: `network_error` (nothing came
 * back: offline, CORS, DNS), `aborted`, `bad_response`, and `invalid_request` with status 0 for
 * a call refused before it was sent (an id that is not a whole number, 0 or more).
 * `message` is always a sentence that may be shown to a person: for a relayed refusal, the
 * service's own `user_message` when it gave one. Like `upstream`, it is untrusted text (it can
 * come from the media service or the upload host): put it on the page with `textContent`, never
 * as HTML (`innerHTML`, `insertAdjacentHTML`).
 */
export class MediaBffError extends Error {
  readonly status: number
  readonly code: string
  readonly details: Record<string, unknown>
  /** Where to send the browser to sign in again (`login_required`, `reauth_required`). */
  readonly loginUrl: string | undefined
  /** Where to send the browser to grant the missing scopes (`insufficient_scope`). */
  readonly reauthorizeUrl: string | undefined
  readonly requiredScopes: string[]
  /** For a call media-bff relayed to the media service: what the service answered. */
  readonly upstream: UpstreamFailure | undefined

  constructor (status: number, code: string, message: string, details: Record<string, unknown> = {}, baseUrl = '') {
    super(message)
    this.name = 'MediaBffError'
    this.status = status
    this.code = code
    this.details = details
    this.loginUrl = typeof details.login_url === 'string' ? onBff(baseUrl, details.login_url) : undefined
    this.reauthorizeUrl = typeof details.reauthorize_url === 'string' ? onBff(baseUrl, details.reauthorize_url) : undefined
    this.requiredScopes = Array.isArray(details.required_scopes) ? details.required_scopes.filter((scope): scope is string => typeof scope === 'string') : []
    this.upstream = readUpstream(details.upstream)
  }

  /** The user must sign in (again) before anything else works. */
  get needsSignIn (): boolean {
    return this.code === 'login_required' || this.code === 'reauth_required'
  }
}

export interface MediaBffClientOptions {
  /** Where media-bff is mounted; '' (the default) when it serves this page's origin. */
  baseUrl?: string
}

export interface MediaBffClient {
  getSession: () => Promise<Session>
  /** The sign-in navigation: assign it to `location`, it is not a fetch. */
  loginUrl: (options?: { returnTo?: string, scope?: string }) => string
  logout: () => Promise<void>
  registerUpload: (request: { folderId: number, title?: string, options?: UploadRegistrationOptions }) => Promise<UploadRegistration>
  uploadFile: typeof uploadFile
  finishUpload: (registration: Pick<UploadRegistration, 'finish_url'>) => Promise<FinishResult>
  /**
   * One media service operation through media-bff's relay: `path` is relative to `/api/`
   * (`'folders/0/contents?files=0'`). Writes carry `X-CSRF: 1` and a JSON body; an empty answer
   * (204) resolves to undefined. Only the operations media-bff allowlists are relayed.
   */
  api: <T = unknown>(method: ApiMethod, path: string, body?: Record<string, unknown>) => Promise<T>
  /** The signed-in user and the scopes the account is entitled to (needs `user.info`). */
  userInfo: () => Promise<MediaUserInfo>
  folders: {
    /** Needs `basic`. */
    get: (id: MediaId) => Promise<Folder>
    /** Subfolders and files; leave one out with `{ folders: false }` or `{ files: false }`. Needs `basic`. */
    contents: (id: MediaId, options?: { folders?: boolean, files?: boolean }) => Promise<FolderContents>
    /** Creates a folder inside `parentId` (0 for home). Needs `manage`. */
    create: (parentId: MediaId, name: string) => Promise<Folder>
    /** Needs `manage`. */
    rename: (id: MediaId, name: string) => Promise<Folder>
    /** Needs `manage`. */
    remove: (id: MediaId) => Promise<void>
    /** Needs `share`. */
    share: (id: MediaId) => Promise<ShareInfo>
  }
  files: {
    /** Needs `basic`. */
    get: (id: MediaId) => Promise<MediaFile>
    /** Needs `manage`. */
    update: (id: MediaId, changes: { title: string }) => Promise<MediaFile>
    /** Needs `manage`. */
    remove: (id: MediaId) => Promise<void>
    /** Needs `share`. */
    share: (id: MediaId) => Promise<ShareInfo>
    /** One link for one or more files. Needs `share`. */
    shareLink: (ids: readonly MediaId[], options?: ShareLinkOptions) => Promise<ShareLink>
  }
  /** oEmbed description of a share URL. Needs `basic`. */
  oembed: (url: string) => Promise<OEmbed>
}

export function createMediaBffClient ({ baseUrl = '' }: MediaBffClientOptions = {}): MediaBffClient {
  const root = baseUrl.replace(/\/+$/, '')
  const call = async <T>(method: ApiMethod, path: string, body?: unknown): Promise<T> => await callBff<T>(root, method, path, body)
  const api = async <T = unknown>(method: ApiMethod, path: string, body?: Record<string, unknown>): Promise<T> => {
    if (method === 'GET' && body !== undefined) throw clientError('A GET call to media-bff cannot carry a body.', 'body')
    return await callBff<T>(root, method, `/api/${apiPath(path)}`, body, { emptyAnswer: true })
  }
  const share = async (kind: 'files' | 'folders', id: MediaId): Promise<ShareInfo> => await api<ShareInfo>('GET', `${kind}/${idSegment(id)}/share`)
  return {
    getSession: async () => await call<Session>('GET', '/auth/session'),
    loginUrl: ({ returnTo = '/', scope } = {}) => {
      const query = new URLSearchParams({ return_to: returnTo })
      if (scope !== undefined) query.set('scope', scope)
      return `${root}/auth/login?${query.toString()}`
    },
    logout: async () => { await call('POST', '/auth/logout') },
    registerUpload: async ({ folderId, title, options }) => await call<UploadRegistration>('POST', '/uploads/register', {
      folder_id: folderId,
      ...(title === undefined || title === '' ? {} : { title }),
      ...(options === undefined ? {} : { options })
    }),
    uploadFile,
    finishUpload: async (registration) => await call<FinishResult>('POST', registration.finish_url),
    api,
    userInfo: async () => record(await api('GET', 'user/info')) as MediaUserInfo,
    folders: {
      get: async (id) => record(await api('GET', `folders/${idSegment(id)}`)) as Folder,
      contents: async (id, { folders, files } = {}) => {
        const query = new URLSearchParams()
        if (folders !== undefined) query.set('folders', folders ? '1' : '0')
        if (files !== undefined) query.set('files', files ? '1' : '0')
        const search = query.toString()
        const path = `folders/${idSegment(id)}/contents${search === '' ? '' : `?${search}`}`
        const answer = record(await api('GET', path))
        return { ...answer, folders: records(answer.folders) as Folder[], files: records(answer.files) as MediaFile[] }
      },
      create: async (parentId, name) => record(await api('POST', `folders/${idSegment(parentId, 'parent_id')}`, { name })) as Folder,
      rename: async (id, name) => record(await api('PUT', `folders/${idSegment(id)}`, { name })) as Folder,
      remove: async (id) => { await api('DELETE', `folders/${idSegment(id)}`) },
      share: async (id) => await share('folders', id)
    },
    files: {
      get: async (id) => record(await api('GET', `files/${idSegment(id)}`)) as MediaFile,
      update: async (id, { title }) => record(await api('PUT', `files/${idSegment(id)}`, { title })) as MediaFile,
      remove: async (id) => { await api('DELETE', `files/${idSegment(id)}`) },
      share: async (id) => await share('files', id),
      shareLink: async (ids, { download, expires } = {}) => {
        if (ids.length === 0) throw clientError('Name at least one file to share.', 'files')
        const files = ids.map((id) => Number(idSegment(id, 'files')))
        return record(await api('POST', 'files/0/share/link', {
          files,
          ...(download === undefined ? {} : { download }),
          ...(expires === undefined ? {} : { expires: expiry(expires) })
        })) as ShareLink
      }
    },
    oembed: async (url) => record(await api('GET', `oembed?${new URLSearchParams({ url }).toString()}`)) as OEmbed
  }
}

/**
 * The absolute http(s) URL `value` holds, or undefined. Check every URL from an answer with it
 * before it goes into an href, a src or location: a `javascript:` or `data:` link would run in
 * this page.
 */
export function safeHttpUrl (value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 4096) return undefined
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined
  } catch {
    return undefined
  }
}

/** The largest id media-bff's relay takes: 15 digits (its ID_PATTERN, `^\d{1,15}$`). */
const MAX_ID = 999_999_999_999_999

/** An id as a path segment: a whole number from 0 to MAX_ID, or the call fails before it is sent. */
function idSegment (id: MediaId, field = 'id'): string {
  const value = typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : id
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_ID) {
    throw clientError(`${field} must be a whole number, 0 or more (got ${JSON.stringify(id)}).`, field)
  }
  return String(value)
}

/** `path` relative to /api/, without tricks that would make it another path on media-bff. */
function apiPath (path: string): string {
  const relative = path.replace(/^\/+/, '')
  const route = relative.split('?', 1)[0] ?? ''
  const segments = route.split('/')
  if (route === '' || /[\\#]|%2e|%2f|%5c/i.test(route) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw clientError(`"${path}" is not an operation path under /api/ (e.g. "folders/0/contents").`, 'path')
  }
  return relative
}

function expiry (value: Date | number | string): number | string {
  if (!(value instanceof Date)) return value
  const seconds = Math.floor(value.getTime() / 1000)
  if (!Number.isFinite(seconds)) throw clientError('The expiry date is not a valid date.', 'expires')
  return seconds
}

/** A mistake in the call itself, found before anything was sent (so status 0). */
function clientError (message: string, field: string): MediaBffError {
  return new MediaBffError(0, 'invalid_request', message, { field })
}

/** A JSON object (not null, not an array). */
function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function record (value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {}
}

function records (value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter(isRecord) : []
}

function readUpstream (source: unknown): UpstreamFailure | undefined {
  if (!isRecord(source)) return undefined
  const upstream: UpstreamFailure = {}
  for (const key of ['endpoint', 'error', 'error_description', 'user_message'] as const) {
    const field = source[key]
    if (typeof field === 'string' && field !== '') upstream[key] = field
  }
  if (typeof source.status === 'number') upstream.status = source.status
  return upstream
}

/** One JSON call to media-bff with the session cookie; non-2xx answers become MediaBffError. */
async function callBff<T> (root: string, method: ApiMethod, path: string, body?: unknown, { emptyAnswer = false } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  // media-bff refuses state-changing calls without it: a custom header cannot be sent by a
  // cross-site form, and cross-site scripts only after a CORS preflight it never grants.
  if (method !== 'GET') headers['x-csrf'] = '1'
  // No content-type without a body: media-bff reads an empty JSON body as malformed.
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(`${root}${path}`, {
      method,
      headers,
      credentials: 'include',
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  } catch (error) {
    throw new MediaBffError(0, 'network_error', 'media-bff cannot be reached. Check your connection and try again.', { cause: String(error) }, root)
  }
  const text = await response.text()
  const parsed = parseJson(text)
  if (!response.ok) throw bffError(response.status, parsed, root)
  if (emptyAnswer && text.trim() === '') return undefined as T
  if (parsed === undefined) throw new MediaBffError(response.status, 'bad_response', 'media-bff answered something this page cannot read.', {}, root)
  return parsed as T
}

function bffError (status: number, body: Record<string, unknown> | undefined, root: string): MediaBffError {
  const code = typeof body?.error === 'string' ? body.error : `http_${status}`
  // A relayed refusal may carry the service's own sentence for people; it says more than ours.
  const userMessage = readUpstream(body?.upstream)?.user_message
  const message = userMessage ?? (typeof body?.message === 'string' ? body.message : `media-bff answered with HTTP ${status}.`)
  const { error: _error, message: _message, ...details } = body ?? {}
  return new MediaBffError(status, code, message, details, root)
}

/**
 * Posts one file straight to the registration's upload address (multipart `file`, `title`,
 * `folder_id`). Uses XMLHttpRequest because fetch cannot report upload progress. Sends no
 * cookies and no custom headers: the signed URL is the credential, and a plain multipart POST
 * needs no CORS preflight. Files of one registration may be uploaded concurrently.
 */
export async function uploadFile (registration: Pick<UploadRegistration, 'url_upload_direct'>, file: Blob, options: UploadFileOptions = {}): Promise<DirectUploadResult> {
  const { title, folderId, onProgress, signal } = options
  const form = new FormData()
  if (folderId !== undefined) form.append('folder_id', String(folderId))
  if (title !== undefined && title !== '') form.append('title', title)
  // The file goes last so a streaming server already has the other fields when it arrives.
  const filename = options.filename ?? (file instanceof File ? file.name : 'upload')
  form.append('file', file, filename)

  return await new Promise<DirectUploadResult>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortedError())
      return
    }
    const xhr = new XMLHttpRequest()
    const abort = (): void => { xhr.abort() }
    const settle = (): void => { signal?.removeEventListener('abort', abort) }
    xhr.open('POST', registration.url_upload_direct)
    xhr.responseType = 'text'
    xhr.upload.addEventListener('progress', (event) => {
      onProgress?.(event.loaded, event.lengthComputable ? event.total : file.size)
    })
    xhr.addEventListener('load', () => {
      settle()
      const body = parseJson(xhr.responseText)
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.(file.size, file.size)
        resolve({ status: 'success', ...body })
      } else {
        reject(uploadError(xhr.status, body))
      }
    })
    xhr.addEventListener('error', () => {
      settle()
      reject(new MediaBffError(0, 'network_error', 'The upload could not reach the media service (offline, or the upload host refused this site).'))
    })
    xhr.addEventListener('abort', () => {
      settle()
      reject(abortedError())
    })
    signal?.addEventListener('abort', abort, { once: true })
    xhr.send(form)
  })
}

/** The upload host's refusal; its user_message is meant for people, error_description for developers. */
function uploadError (status: number, body: Record<string, unknown> | undefined): MediaBffError {
  const text = (key: string): string | undefined => typeof body?.[key] === 'string' && body[key] !== '' ? body[key] : undefined
  const message = text('user_message') ?? text('error_description') ?? `The media service refused the file (HTTP ${status}).`
  return new MediaBffError(status, text('error') ?? 'upload_failed', message, {
    error_description: text('error_description'),
    user_message: text('user_message')
  })
}

function abortedError (): MediaBffError {
  return new MediaBffError(0, 'aborted', 'The upload was cancelled.')
}

function parseJson (text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * media-bff answers with paths on itself; make them usable when it lives on another origin.
 * Anything but a local path or an http(s) URL is dropped: these end up in links and location.
 */
function onBff (root: string, path: string): string | undefined {
  if (path.startsWith('/') && !path.startsWith('//')) return `${root}${path}`
  return /^https?:\/\//i.test(path) ? path : undefined
}
