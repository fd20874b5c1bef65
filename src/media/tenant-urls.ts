// URLs the media service hands back are input. One that media-bff will later call with the
// user's token must be on the tenant's own API: same origin, under its /api path, no
// credentials. Anything else is refused before it is stored or followed.
//
// The relay asks this of every string in an answer that carries the tenant's host, so a hostile
// answer can ask it a hundred thousand times: the tenant's API URL is parsed once (tenantApi),
// and a string that cannot be an http(s) URL is refused before any parsing (mayBeHttpUrl).

/** The tenant's API, parsed once. */
export interface TenantApi {
  origin: string
  /** host[:port], as it appears in links. */
  host: string
  /** The API's path without a trailing slash, e.g. /api */
  path: string
}

export function tenantApi (apiUrl: string): TenantApi {
  const api = new URL(apiUrl)
  return { origin: api.origin, host: api.host, path: api.pathname.replace(/\/+$/, '') }
}

/** The URL, normalised, when it lies under the tenant's API; undefined otherwise. */
export function underTenantApi (value: unknown, api: string | TenantApi): string | undefined {
  if (typeof value !== 'string' || value.length > 2048 || !mayBeHttpUrl(value)) return undefined
  let url: URL
  let parsedApi: TenantApi
  try {
    url = new URL(value)
    parsedApi = typeof api === 'string' ? tenantApi(api) : api
  } catch {
    return undefined
  }
  if (url.origin !== parsedApi.origin || url.username !== '' || url.password !== '' || url.hash !== '') return undefined
  // The parser has already resolved dot segments (also percent-encoded ones), so a prefix
  // check on the normalised path cannot be walked out of.
  if (!url.pathname.startsWith(`${parsedApi.path}/`)) return undefined
  // An encoded slash or backslash could still be decoded into a walk by the server behind.
  if (/%2f|%5c/i.test(url.pathname)) return undefined
  return url.href
}

const SCHEME = [0x68, 0x74, 0x74, 0x70] // h t t p

/**
 * Whether `value` can parse as an http: or https: URL, decided without parsing it. The URL
 * parser (WHATWG) drops leading C0 controls and spaces, removes every tab, CR and LF, and reads
 * the scheme case-insensitively, so only a string that, read the same way, starts with `http:`
 * or `https:` can become one; a tenant's API is always http(s), so for anything else
 * underTenantApi's answer is already known. False never refuses a string the full check would
 * accept (test/relay/local-link.unit.test.ts).
 */
export function mayBeHttpUrl (value: string): boolean {
  let i = 0
  while (i < value.length && value.charCodeAt(i) <= 0x20) i++
  let matched = 0
  for (; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code === 0x09 || code === 0x0a || code === 0x0d) continue
    if (matched < 4) {
      // | 0x20 lower-cases an ASCII letter and maps no other character onto h, t or p.
      if ((code | 0x20) !== SCHEME[matched]) return false
      matched++
    } else if (matched === 4 && (code | 0x20) === 0x73) {
      matched = 5
    } else {
      return code === 0x3a
    }
  }
  return false
}
