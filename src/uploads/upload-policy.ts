// Operator policy for upload registrations: caps on what a browser may ask for, and the check
// that the upload URL handed to the browser points where it should.
import type { Config } from '../config/config.js'
import { UrlRefusedError } from '../media/upstream-error.js'
import type { Static } from 'typebox'
import type { UploadRegistrationOptions } from '../contract/uploads.js'

/** The scope registering and finishing an upload need. */
export const UPLOAD_SCOPE = 'upload'

/** What a registration may ask of the service: the contract's UploadRegistrationOptions. */
export type UploadOptions = Static<typeof UploadRegistrationOptions>

/**
 * The form sent to `POST {api}/upload/id`: the caller's options capped by the operator's, and
 * `hide_response` always on (end users upload directly, so the upload result must not carry file
 * ids or user details).
 */
export function registrationFields (policy: Config['upload'], folderId: number, title: string | undefined, options: UploadOptions = {}): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean> = { folder_id: folderId, hide_response: true }
  if (title !== undefined) fields.title = title
  const capped = (asked: number | undefined, cap: number | undefined): number | undefined =>
    asked === undefined ? cap : cap === undefined ? asked : Math.min(asked, cap)
  const maxFilesize = capped(options.max_filesize, policy.maxFilesize)
  const maxFiles = capped(options.max_files, policy.maxFiles)
  const maxSize = capped(options.max_size, policy.maxSize)
  if (maxFilesize !== undefined) fields.max_filesize = maxFilesize
  if (maxFiles !== undefined) fields.max_files = maxFiles
  if (maxSize !== undefined) fields.max_size = maxSize
  const extensions = allowedExtensions(options.file_extensions, policy.fileExtensions)
  if (extensions !== undefined) fields.file_extensions = extensions.join(',')
  if (options.no_transcode !== undefined) fields.no_transcode = options.no_transcode
  if (options.autofinish !== undefined) fields.autofinish = options.autofinish
  return fields
}

function allowedExtensions (asked: string[] | string | undefined, policy: string[] | undefined): string[] | undefined {
  const list = typeof asked === 'string' ? asked.split(',') : asked
  const normalised = list?.map((ext) => ext.trim().replace(/^\./, '').toLowerCase()).filter((ext) => ext !== '')
  if (normalised === undefined || normalised.length === 0) return policy
  if (policy === undefined) return normalised
  // Only what both allow; an empty intersection keeps the operator's list, never "anything".
  const both = normalised.filter((ext) => policy.includes(ext))
  return both.length > 0 ? both : policy
}

export type UploadUrlVerdict = { ok: true } | { ok: false, reason: string }

/**
 * url_upload_direct goes straight to the browser, so it must be https (plain http only when the
 * tenant's own API is http, as with the local emulator) and, when the operator lists upload
 * hosts, on one of them.
 */
export function checkUploadUrl (value: string, tenantApiUrl: string, allowedHosts: string[]): UploadUrlVerdict {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return { ok: false, reason: 'the upload URL is not a URL' }
  }
  const httpAllowed = tenantApiUrl.startsWith('http:')
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:')) {
    return { ok: false, reason: `the upload URL uses ${url.protocol.replace(':', '')}, not https` }
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'the upload URL carries credentials' }
  if (allowedHosts.length > 0 && !allowedHosts.includes(url.hostname.toLowerCase()) && !allowedHosts.includes(url.host.toLowerCase())) {
    return { ok: false, reason: `the upload host ${url.host} is not in UPLOAD_ALLOWED_HOSTS` }
  }
  return { ok: true }
}

/** A refused upload URL is the upstream's fault: 502, with a reason a person can act on. */
export function refuseUploadUrl (verdict: UploadUrlVerdict): void {
  if (verdict.ok) return
  throw new UrlRefusedError('upload_id', verdict.reason, {
    error: 'forbidden_upload_host',
    error_description: `The media service returned an upload address media-bff may not hand out: ${verdict.reason}.`
  })
}
