/**
 * media-bff browser client: a small, dependency-free module a website copies next to its own
 * scripts. It talks to media-bff (same site, cookie session) for sign-in state and upload
 * registrations, and posts files straight to the media service's upload host. The page never
 * holds an OAuth token: media-bff keeps them, the browser only has its HttpOnly session cookie.
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

export interface StoredFile {
  file_id?: number | string
  folder_id?: number | string
  title?: string
  filename?: string
  size?: number
  urls?: { file?: string }
}

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

/**
 * Every failure of this client. `code` is media-bff's error code (`login_required`,
 * `reauth_required`, `insufficient_scope`, `scope_not_granted`, `csrf_failed`, `upstream_error`,
 * `unavailable`, ...), the upload host's `error` for a refused file, or one of this module's own:
 * `network_error` (nothing came back: offline, CORS, DNS), `aborted`, `bad_response`.
 * `message` is always a sentence that may be shown to a person.
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

  constructor (status: number, code: string, message: string, details: Record<string, unknown> = {}, baseUrl = '') {
    super(message)
    this.name = 'MediaBffError'
    this.status = status
    this.code = code
    this.details = details
    this.loginUrl = typeof details.login_url === 'string' ? onBff(baseUrl, details.login_url) : undefined
    this.reauthorizeUrl = typeof details.reauthorize_url === 'string' ? onBff(baseUrl, details.reauthorize_url) : undefined
    this.requiredScopes = Array.isArray(details.required_scopes) ? details.required_scopes.filter((scope): scope is string => typeof scope === 'string') : []
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
}

export function createMediaBffClient ({ baseUrl = '' }: MediaBffClientOptions = {}): MediaBffClient {
  const root = baseUrl.replace(/\/+$/, '')
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => await callBff<T>(root, method, path, body)
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
    finishUpload: async (registration) => await call<FinishResult>('POST', registration.finish_url)
  }
}

/** One JSON call to media-bff with the session cookie; non-2xx answers become MediaBffError. */
async function callBff<T> (root: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
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
  const parsed = parseJson(await response.text())
  if (!response.ok) throw bffError(response.status, parsed, root)
  if (parsed === undefined) throw new MediaBffError(response.status, 'bad_response', 'media-bff answered something this page cannot read.', {}, root)
  return parsed as T
}

function bffError (status: number, body: Record<string, unknown> | undefined, root: string): MediaBffError {
  const code = typeof body?.error === 'string' ? body.error : `http_${status}`
  const message = typeof body?.message === 'string' ? body.message : `media-bff answered with HTTP ${status}.`
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
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
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
