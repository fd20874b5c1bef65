// Which strings in a relayed answer are links to the tenant's API, and what they become on
// media-bff's own /api/. A plainly spelled link is recognised on its bytes; anything else goes
// through the full URL check (underTenantApi), and the two always agree (test/relay/local-link).
import { tenantApi, underTenantApi, type TenantApi } from '../media/tenant-urls.js'
import type { JsonLinkRewriterOptions } from './json-link-rewriter.js'

export interface RelayTarget {
  /** The tenant's API, e.g. https://tenant.example/api */
  apiUrl: string
  /** media-bff's own /api, e.g. https://media.example.org/api */
  publicApiUrl: string
}

/** A target worked out once per tenant: its API parsed, and the prefix of its plain links. */
export interface LocalLinks {
  api: TenantApi
  /** The tenant's API as links spell it plainly, e.g. https://tenant.example/api */
  apiBase: string
  publicApiUrl: string
}

export function localLinksFor (target: RelayTarget): LocalLinks {
  const api = tenantApi(target.apiUrl)
  return { api, apiBase: `${api.origin}${api.path}`, publicApiUrl: target.publicApiUrl }
}

/**
 * How the relay rewrites an answer's links: the tenant's host marks the candidates; a plainly
 * spelled link has its prefix swapped on the bytes, anything else goes through localLink.
 */
export function linkRewriting (target: RelayTarget): JsonLinkRewriterOptions {
  const links = localLinksFor(target)
  return {
    marker: Buffer.from(links.api.host),
    rewrite: (value) => localLink(value, links),
    plainPrefix: { from: Buffer.from(links.apiBase), to: Buffer.from(target.publicApiUrl), isPlainRest: isPlainApiPath },
    keepsPlain: plainOutsideApi(links.api)
  }
}

/**
 * The common link that stays as it is, decided on the bytes: the tenant's origin, then a path of
 * plain characters (no percent sign, backslash or segment starting with a dot, so the URL parser
 * changes nothing of it) that does not lie under the API's path. Its query is never looked at:
 * whatever it holds, such a link is not under the API.
 */
function plainOutsideApi (api: TenantApi): (raw: Buffer, start: number, end: number) => boolean {
  const origin = Buffer.from(api.origin)
  const apiPrefix = Buffer.from(`${api.path}/`)
  return (raw, start, end) => {
    const path = start + origin.length
    if (end <= path || raw[path] !== 0x2f || raw.compare(origin, 0, origin.length, start, path) !== 0) return false
    let i = path
    for (; i < end && raw[i] !== 0x3f && raw[i] !== 0x23; i++) {
      const byte = raw[i] as number
      if (PATH_BYTE[byte] !== 1 && (byte !== 0x2e || raw[i - 1] === 0x2f)) return false
    }
    return i - path < apiPrefix.length || raw.compare(apiPrefix, 0, apiPrefix.length, path, path + apiPrefix.length) !== 0
  }
}

/** A link to the tenant's API becomes the same link on media-bff's /api/; anything else, undefined. */
export function localLink (value: string, links: LocalLinks): string | undefined {
  // The common spelling, checked without parsing: the tenant's own prefix, then a path and query
  // of plain characters (no dots, percent signs in the path, or doubled slashes to normalise).
  const { apiBase, publicApiUrl } = links
  if (value.startsWith(apiBase)) {
    const rest = value.slice(apiBase.length)
    if (PLAIN_API_PATH.test(rest) && !rest.includes('//')) return `${publicApiUrl}${rest}`
  }
  const href = underTenantApi(value, links.api)
  return href === undefined ? undefined : `${publicApiUrl}${href.slice(apiBase.length)}`
}

const PLAIN_API_PATH = /^\/[\w\-/]*(\?[\w\-.~=&%+]*)?$/

const PATH_BYTE = new Uint8Array(256)
const QUERY_BYTE = new Uint8Array(256)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-') PATH_BYTE[char.charCodeAt(0)] = QUERY_BYTE[char.charCodeAt(0)] = 1
PATH_BYTE[0x2f] = 1
for (const char of '.~=&%+') QUERY_BYTE[char.charCodeAt(0)] = 1

/** PLAIN_API_PATH and no doubled slash, on the bytes from start to end. */
function isPlainApiPath (raw: Buffer, start: number, end: number): boolean {
  if (raw[start] !== 0x2f) return false
  let i = start + 1
  for (; i < end && raw[i] !== 0x3f; i++) {
    const byte = raw[i] as number
    if (PATH_BYTE[byte] !== 1 || (byte === 0x2f && raw[i - 1] === 0x2f)) return false
  }
  for (i++; i < end; i++) if (QUERY_BYTE[raw[i] as number] !== 1) return false
  return true
}
