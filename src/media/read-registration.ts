// The registration record of `POST {api}/upload/id`, read as untrusted input:
// every field media-bff keeps, follows or hands to the browser is checked here, and anything
// that fails is the upstream's fault (502), never a 5xx of our own after the upstream has
// already registered.
import { UpstreamError, UrlRefusedError, serviceErrorFields } from './upstream-error.js'
import { underTenantApi } from './tenant-urls.js'
import { jsonRecord } from './json-record.js'

export interface UploadRegistration {
  ulid: string
  /** Unix time in seconds. */
  expires: number
  /** Seconds left, as of reading. */
  expires_in: number
  url_upload_direct: string
  api: { rel?: string, upload?: string, finish: string }
}

export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/

/** Without a usable expiry we assume an hour: long enough for an upload, short enough to forget. */
const DEFAULT_LIFETIME_S = 3600
/** Nothing media-bff remembers for an upload lives longer than this, whatever the service says. */
const MAX_LIFETIME_S = 86_400
const MAX_URL_LENGTH = 4096

export function readRegistration (body: unknown, apiUrl: string, now = Date.now()): UploadRegistration {
  const record = jsonRecord(body)
  if (record === undefined || record.ulid === undefined) {
    const fields = serviceErrorFields(body)
    throw new UpstreamError(fields.error === undefined ? 'malformed' : 'http', 'upload_id', 'the registration came back without a ulid', 200, fields)
  }
  if (typeof record.ulid !== 'string' || !ULID_PATTERN.test(record.ulid)) throw invalid('the ulid is not a ULID')
  if (typeof record.url_upload_direct !== 'string' || record.url_upload_direct.length > MAX_URL_LENGTH) {
    throw invalid('url_upload_direct is missing or too long')
  }
  const api = jsonRecord(record.api) ?? {}
  // The finish URL is called later with DELETE and the user's token: only ever the service's own
  // `upload/id/<this ulid>` on the tenant's API, never another path there (a folder, a file).
  const finish = underTenantApi(api.finish, apiUrl)
  if (finish === undefined || finish !== underTenantApi(`${apiUrl.replace(/\/+$/, '')}/upload/id/${record.ulid}`, apiUrl)) {
    throw invalid('api.finish is not this upload\'s upload/id URL on the tenant\'s API', api.finish !== undefined)
  }
  const expiresIn = lifetimeSeconds(record.expires_in, record.expires, now)
  const registration: UploadRegistration = {
    ulid: record.ulid,
    expires: Math.floor(now / 1000) + expiresIn,
    expires_in: expiresIn,
    url_upload_direct: record.url_upload_direct,
    api: { finish }
  }
  // api.upload is the same signed URL again (checked with url_upload_direct by the caller);
  // any other value is dropped rather than handed to the browser unchecked.
  if (api.upload === record.url_upload_direct) registration.api.upload = record.url_upload_direct
  if (typeof api.rel === 'string' && /^[a-z_]{1,32}$/.test(api.rel)) registration.api.rel = api.rel
  return registration
}

/** expires_in if usable, else what `expires` (Unix seconds) leaves, else the default; capped. */
function lifetimeSeconds (expiresIn: unknown, expires: unknown, now: number): number {
  const asNumber = (value: unknown): number => typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN
  let seconds = asNumber(expiresIn)
  if (!Number.isFinite(seconds) || seconds <= 0) seconds = asNumber(expires) - now / 1000
  if (!Number.isFinite(seconds) || seconds <= 0) seconds = DEFAULT_LIFETIME_S
  return Math.min(MAX_LIFETIME_S, Math.ceil(seconds))
}

function invalid (reason: string, urlRefused = false): UpstreamError {
  const fields = {
    error: 'invalid_registration',
    error_description: `The media service answered the registration with something media-bff cannot use (${reason}).`
  }
  const message = `the registration is unusable: ${reason}`
  return urlRefused ? new UrlRefusedError('upload_id', message, fields) : new UpstreamError('malformed', 'upload_id', message, 200, fields)
}
