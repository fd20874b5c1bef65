// Written from src/contract/ by `npm run generate`: edit the schemas there, never this file.
// The JSON media-bff answers with (and takes), as its routes describe it in /docs; every field a
// relayed answer of the media service holds is the service's text: show it with textContent.

export interface ErrorBody {
  /** The code: login_required, reauth_required, insufficient_scope, scope_not_granted, csrf_failed, not_found, invalid_request, rate_limited, upstream_refused, upstream_error, unavailable, ... */
  error: string
  /** A sentence that may be shown to a person */
  message: string
  login_url?: string
  /** Why, where a code has more than one cause: recent_sign_in, for a reauth_required a risky act met */
  reason?: string
  /** With reason recent_sign_in: the oldest sign-in the act takes, in seconds (RECENT_SIGN_IN) */
  max_age?: number
  required_scopes?: string[]
  reauthorize_url?: string
  field?: string
  location?: string
  known_scopes?: string[]
  upstream?: UpstreamFailure
}

/** What the media service said when it refused: its own text, untrusted (control and bidirectional characters stripped, each field at most 300 characters), to be shown with textContent, never as HTML */
export interface UpstreamFailure {
  /** The operation media-bff called */
  endpoint?: string
  status?: number
  error?: string
  error_description?: string
  /** Meant for people */
  user_message?: string
}

export interface SessionUser {
  /** The media service's id of the person; null when user/info did not say */
  id: string | null
  /** Their name; null when user/info did not say (or user.info was not granted) */
  name: string | null
  /** Their e-mail address; null when not known */
  email: string | null
}

export interface SignedInSession {
  authenticated: true
  user: SessionUser
  /** The media service tenant signed in with */
  tenant: string
  /** The scopes the person granted, e.g. basic, user.info, upload */
  scopes: string[]
  /** When the session ends unless used again: the earlier of the two below */
  expires_at: string
  /** When the idle timeout ends it; every call moves it on */
  idle_expires_at: string
  /** When it ends in any case, however busy (SESSION_ABSOLUTE_TIMEOUT) */
  absolute_expires_at: string
  /** The media service no longer takes the grant: the next call will ask to sign in again */
  reauth_required: boolean
}

export interface SignedOutSession {
  authenticated: false
  /** Where to send the browser to sign in (a navigation, not a fetch) */
  login_url: string
}

/** Who is signed in in this browser, with which scopes, until when; or where to sign in */
export type Session = SignedInSession | SignedOutSession

export interface SignedOut {
  logged_out: true
}

/** One of the signed-in person's sessions */
export interface SessionListItem {
  /** Opaque, never the cookie's id: pass it to sessions.end */
  id: string
  created_at: string
  last_active_at: string
  /** A short description from its browser, e.g. "Firefox on Windows" */
  device: string
  /** The network it began on: an IPv4 /24 or an IPv6 /48 */
  network: string
  /** The session of the browser making the call */
  current: boolean
}

export interface SessionList {
  /** Most recently active first */
  sessions: SessionListItem[]
}

export interface SessionEnded {
  ended: number
  /** It was this browser's session: its cookie is cleared */
  signed_out: boolean
}

export interface OtherSessionsEnded {
  ended: number
}

/** Limits asked of the media service for one registration (media-bff may cap them further) */
export interface UploadRegistrationOptions {
  /** Bytes per file, at most */
  max_filesize?: number
  max_files?: number
  /** Bytes in total, at most */
  max_size?: number
  /** The extensions allowed: a list, or one comma-separated string */
  file_extensions?: string[] | string
  no_transcode?: boolean
  /** Leave on (the default) for one file: the service finishes the upload once the file is stored, and the browser module finishes it through media-bff too, so the person's pages hear of the file. Turn off for a batch and finish after it. */
  autofinish?: boolean
}

export interface UploadRegistrationRequest {
  /** Target folder; 0 is the home folder */
  folder_id: number
  /** The files' title; no control or bidirectional characters */
  title?: string
  options?: UploadRegistrationOptions
}

/** What POST /uploads/register answers: a pre-authorized upload address and how to finish */
export interface UploadRegistration {
  ulid: string
  /** Unix time in seconds */
  expires: number
  /** Seconds left */
  expires_in: number
  /** Signed URL on the upload host: the browser posts each file there (multipart file, title, folder_id), no credentials needed */
  url_upload_direct: string
  api: {
    rel?: string
    upload?: string
    finish: string
  }
  /** media-bff's path that finishes this upload for the session that registered it */
  finish_url: string
  /** Whether the service finishes the upload by itself after one file (what was asked of it; its default is on). The browser module then still finishes it through finish_url, so the person's pages hear of the file. */
  autofinish: boolean
}

export interface FinishResult {
  status: string
  /** The files the upload stored */
  files: StoredFile[]
}

/** A folder or file id: a whole number, 0 or more (0 is the home folder); some answers give it as a string */
export type MediaId = number | string

/** Links to related operations (self, contents, share, ...), on media-bff's /api/ when they pointed at the service's API; check one with safeHttpUrl before it goes into an href */
export type ApiLinks = Record<string, string>

/** A file, as the media service describes it */
export interface MediaFile {
  file_id?: MediaId
  folder_id?: MediaId
  title?: string
  filename?: string
  /** Bytes */
  size?: number
  mime_type?: string
  /** When it was stored: a date or Unix seconds, as the service says it */
  created?: string | number
  /** `processing` until the service has transcoded it (it cannot be played or embedded yet), then `ready` */
  status?: string
  /** Its links by kind; `file` is its direct link */
  urls?: Record<string, string>
  api?: ApiLinks
  [field: string]: unknown
}

/** A file as media-bff read it from the service and passes it on: the documented fields only, each checked */
export interface StoredFile {
  file_id?: MediaId
  folder_id?: MediaId
  /** Plain text: no control or bidirectional characters */
  title?: string
  /** Plain text: no control or bidirectional characters */
  filename?: string
  /** Bytes */
  size?: number
  /** `processing` until the service has transcoded it, then `ready` */
  status?: string
  urls?: {
    /** Its direct link, only ever on the tenant's own origin */
    file?: string
  }
}

/** A folder, as the media service describes it */
export interface Folder {
  folder_id?: MediaId
  name?: string
  /** null for the home folder (0) */
  parent_id?: MediaId | null
  /** When it was made: a date or Unix seconds */
  created?: string | number
  folder_count?: number
  file_count?: number
  api?: ApiLinks
  [field: string]: unknown
}

/** A folder's subfolders and files */
export interface FolderContents {
  folder_id?: MediaId
  /** Absent when not asked for (folders=0) */
  folders?: Folder[]
  /** Absent when not asked for (files=0) */
  files?: MediaFile[]
  [field: string]: unknown
}

/** The signed-in user, as the media service describes them */
export interface MediaUserInfo {
  user_id?: MediaId
  username?: string
  name?: string
  email?: string
  /** The scopes the account is entitled to (what it could grant), not what this session granted */
  scopes?: string[]
  [field: string]: unknown
}

/** How a file or folder is shared: its public page and the HTML to embed it */
export interface ShareInfo {
  file_id?: MediaId
  folder_id?: MediaId
  /** Its public page */
  url?: string
  /** HTML to embed it: the service's, untrusted */
  embed?: string
  /** For a file: its direct link at file.url, through media-bff's /api/ when it is an API link */
  objects?: {
    file?: {
      url?: string
      [field: string]: unknown
    }
    [field: string]: unknown
  }
  [field: string]: unknown
}

/** A share link for one or more files */
export interface ShareLink {
  status?: string
  /** The link to hand out */
  link?: string
  files?: MediaId[]
  download?: boolean
  /** Unix seconds or a date, as the service says it; null or absent when it never expires */
  expires?: number | string | null
  [field: string]: unknown
}

/** oEmbed (https://oembed.com) description of a shared file */
export interface OEmbed {
  type?: string
  version?: string
  title?: string
  /** The service's HTML, untrusted */
  html?: string
  width?: number
  height?: number
  provider_name?: string
  thumbnail_url?: string
  [field: string]: unknown
}

/** The data of `ready`, the first event of every channel */
export interface LiveReady {
  /** How often a comment line comes: a page that hears nothing for several is no longer connected */
  heartbeat_ms: number
}

/** The data of `file`: one file of this person's, as the service describes it now (StoredFile's fields), and what told of it */
export interface LiveFile {
  file_id?: MediaId
  folder_id?: MediaId
  /** Plain text: no control or bidirectional characters */
  title?: string
  /** Plain text: no control or bidirectional characters */
  filename?: string
  /** Bytes */
  size?: number
  /** `processing` until the service has transcoded it, then `ready` */
  status?: string
  urls?: {
    /** Its direct link, only ever on the tenant's own origin */
    file?: string
  }
  /** `finished` (an upload was finished), or the service's webhook event that told of it (`file_transcode`, ...) */
  event: string
}

/** The data of `session`: the session ended */
export interface LiveSessionEnded {
  ended: true
  /** `signed_out`, `expired`, `ended` (from another device, by an operator or by the service), or `replaced` by a new sign-in in the same browser, whose pages reconnect with the new cookie */
  reason: 'signed_out' | 'expired' | 'ended' | 'replaced'
}

/** The data of `resync`: nothing */
export type LiveResync = Record<string, never>

/** The data of `closed`: media-bff closed this channel */
export interface LiveClosed {
  /** `session_limit` or `person_limit`: a newer tab took this one's place; `instance_full`: the instance had no room as the channel opened */
  reason: 'session_limit' | 'person_limit' | 'instance_full'
}

export interface AssertionClaims {
  /** PUBLIC_URL, with BASE_PATH */
  iss: string
  /** ASSERTION_AUDIENCE (PUBLIC_URL, with BASE_PATH, unless set) */
  aud: string
  /** The person's id at the media service; absent when the service never said */
  sub?: string
  /** Their name, when the service said */
  name?: string
  /** Their e-mail, when the service said */
  email?: string
  /** The tenant they signed in to */
  tenant: string
  /** The scopes their grant holds, space-separated */
  scope: string
  /** When they signed in (seconds since the epoch) */
  auth_time: number
  /** Their session's id as GET /auth/sessions lists it: never the cookie's */
  sid: string
  /** Issued at (seconds) */
  iat: number
  /** Not before (seconds): the same as iat */
  nbf: number
  /** Expires (seconds): at most ASSERTION_LIFETIME after iat, never after the session ends */
  exp: number
  /** A random id, unique to this assertion */
  jti: string
}

export interface PublicJwk {
  kty: 'EC' | 'OKP'
  crv: 'P-256' | 'Ed25519'
  x: string
  y?: string
  /** The id ASSERTION_KEYS gives the key; an assertion's header names it */
  kid: string
  alg: 'ES256' | 'EdDSA'
  use: 'sig'
}

export interface JwkSet {
  /** The key that signs first, then the others still served */
  keys: PublicJwk[]
}

export interface DeviceBoundSessionInstructions {
  /** The binding's id: what the browser names its refreshes by (Sec-Secure-Session-Id); never the session's id or handle */
  session_identifier: string
  /** Where the browser renews the short-lived cookie (POST, under BASE_PATH) */
  refresh_url: string
  scope: {
    /** PUBLIC_URL's origin */
    origin: string
    include_site: false
    /** What needs no short-lived cookie, on PUBLIC_URL's origin: the sign-in's callback, the proxy's check, these routes */
    scope_specification: Array<{
      type: 'include' | 'exclude'
      /** PUBLIC_URL's host */
      domain: string
      path: string
    }>
  }
  /** The hosts of ALLOWED_ORIGINS: their pages' calls renew the cookie too */
  allowed_refresh_initiators?: string[]
  credentials: Array<{
    type: 'cookie'
    /** The session cookie's name and -bound */
    name: string
    /** As the Set-Cookie beside it says: Path=/; Secure; HttpOnly; SameSite=Strict */
    attributes: string
  }>
}

export interface DeviceBindingEnded {
  /** The browser drops its device-bound session and its key: the session it spoke for is over, or was never this one */
  continue: false
}

/** The live channel's events (GET /events) by name, each with the JSON of its data */
export interface LiveEventData {
  /** The first event of every channel, after the `retry` field (how long to wait before reconnecting); its id is a point to resume from */
  ready: LiveReady
  /** A file of this person's, as the service describes it now: one event per file of a finish or a webhook, the message's id on the last */
  file: LiveFile
  /** The session ended; the channel closes after it */
  session: LiveSessionEnded
  /** The page was away too long (or gave an id of another deployment) to be sent what it missed: it reads its state again */
  resync: LiveResync
  /** media-bff closed the channel: the session's or the person's other channels took its place, or the instance was full as it opened */
  closed: LiveClosed
}
