// Cache validators bound to the signed-in person. The relay serves every user the same URLs
// (/api/folders/0/contents is everyone's home folder), and the service's own validators can be
// the same for two people (a version number, a date), so a browser shared by two people one after
// the other could revalidate the first person's cached answer with the second person's
// sign-in and be told "not modified". The ETag the browser sees is therefore
//
//   W/"<binding>.<kind><validator>"
//
// where <validator> is the service's (kind e: its strong ETag, w: its weak ETag, d: its
// Last-Modified as Unix seconds, when it sent no ETag), and <binding> an HMAC over the viewer
// (tenant and user id, or the sign-in) and the validator, with a key derived from
// SESSION_SECRETS: no user id in clear, nothing a browser can forge. An If-None-Match is
// translated back and sent up only when its binding is this viewer's; anything else goes up as
// an unconditional GET.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { createBoundedMemo, type BoundedMemo } from '../bounded-memo.js'

/** The condition to send up for a browser's If-None-Match. */
export interface UpstreamCondition {
  ifNoneMatch?: string
  ifModifiedSince?: string
}

export interface ValidatorBinding {
  /** The browser's ETag for the service's validators in `headers`, or undefined without one. */
  bind: (viewer: string, headers: IncomingHttpHeaders) => string | undefined
  /** The service's validators in a browser's If-None-Match, those bound to `viewer` only. */
  unbind: (viewer: string, ifNoneMatch: string) => UpstreamCondition | undefined
}

const BINDING_CHARS = 22
const BINDING = /^[\w-]{22}$/
const MAX_ETAG_LENGTH = 256
const ETAG = /^(W\/)?"([\x21\x23-\x7e]*)"$/
const MAX_DATE_LENGTH = 64
/** Tags in an If-None-Match looked at; a browser sends one. */
const MAX_TAGS = 8
/**
 * Bindings kept per key: a person's listing is answered and revalidated with the same validator
 * again and again, and an HMAC a request was a tenth of the relay's CPU (bench/analysis.md).
 */
const MEMO_ENTRIES = 4096

interface BindingKey { key: KeyObject, made: BoundedMemo<string> }

/** `secrets`: SESSION_SECRETS, the first binds, every one verifies (rotation). */
export function createValidatorBinding (secrets: readonly string[]): ValidatorBinding {
  // A key of its own for this use, so a binding says nothing about the session signatures.
  const keys: BindingKey[] = secrets.map((secret) => ({
    key: createSecretKey(createHmac('sha256', secret).update('media-bff relay validators').digest()),
    made: createBoundedMemo<string>(MEMO_ENTRIES)
  }))
  /** The binding; remembered only for what the service sent (`bind`), never for a browser's guess. */
  const mac = ({ key, made }: BindingKey, viewer: string, validator: string, remember: boolean): string => {
    const input = `${viewer}\n${validator}`
    let binding = made.get(input)
    if (binding === undefined) {
      binding = createHmac('sha256', key).update(input).digest('base64url').slice(0, BINDING_CHARS)
      if (remember) made.set(input, binding)
    }
    return binding
  }
  return {
    bind (viewer, headers) {
      const validator = upstreamValidator(headers)
      const key = keys[0]
      if (validator === undefined || key === undefined) return undefined
      return `W/"${mac(key, viewer, validator, true)}.${validator}"`
    },
    unbind (viewer, ifNoneMatch) {
      const etags: string[] = []
      let since: number | undefined
      let seen = 0
      for (const match of ifNoneMatch.matchAll(/(?:W\/)?"([^"]*)"/g)) {
        if (++seen > MAX_TAGS) break
        const opaque = match[1] ?? ''
        const dot = opaque.indexOf('.')
        if (dot !== BINDING_CHARS) continue
        const binding = opaque.slice(0, dot)
        // base64url only: anything else is no binding of ours (and would not compare byte for byte).
        if (!BINDING.test(binding)) continue
        const given = Buffer.from(binding)
        const validator = opaque.slice(dot + 1)
        if (!keys.some((key) => timingSafeEqual(Buffer.from(mac(key, viewer, validator, false)), given))) continue
        const kind = validator[0]
        const value = validator.slice(1)
        if (kind === 'e') etags.push(`"${value}"`)
        else if (kind === 'w') etags.push(`W/"${value}"`)
        else if (kind === 'd' && /^\d{1,12}$/.test(value)) since = Math.max(since ?? 0, Number(value))
      }
      if (etags.length > 0) return { ifNoneMatch: etags.join(', ') }
      if (since !== undefined) return { ifModifiedSince: new Date(since * 1000).toUTCString() }
      return undefined
    }
  }
}

/** The service's validator as `<kind><value>`: its ETag, else its Last-Modified; undefined without a sane one. */
function upstreamValidator (headers: IncomingHttpHeaders): string | undefined {
  const etag = single(headers.etag)
  const tag = etag !== undefined && etag.length <= MAX_ETAG_LENGTH ? ETAG.exec(etag) : null
  if (tag !== null) return `${tag[1] === undefined ? 'e' : 'w'}${tag[2] ?? ''}`
  const lastModified = single(headers['last-modified'])
  if (lastModified === undefined || lastModified.length > MAX_DATE_LENGTH) return undefined
  const ms = Date.parse(lastModified)
  return Number.isNaN(ms) || ms < 0 ? undefined : `d${Math.floor(ms / 1000)}`
}

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value
}
