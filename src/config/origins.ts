// Where media-bff is reached and who may reach it: PUBLIC_URL, the proxies whose forwarded headers
// are believed (TRUST_PROXY) and the origins whose pages may call it (ALLOWED_ORIGINS). In
// production, what only the local demo may do is refused: plain http, a proxy list that trusts
// every address, an allowed origin of another site.
import type { DeclaredReader } from './declared-reader.js'
import { isSameSite, siteOf } from './same-site.js'
import { isAddressOrCidr, trustsEveryone } from './trusted-proxies.js'
import { readOptionalSetting } from './unset-on-purpose.js'

export interface PublicAddress {
  publicUrl: string
  publicOrigin: string
  /** Set and https: the session cookie is then __Host-Http-, Secure. */
  isHttps: boolean
  /** Whether PUBLIC_URL was set and usable (checks that depend on it are skipped otherwise). */
  given: boolean
}

export function readPublicAddress (read: DeclaredReader, production: boolean): PublicAddress {
  const setting = read.url('PUBLIC_URL', read.required('PUBLIC_URL'))
  const publicUrl = setting ?? 'http://invalid'
  const isHttps = publicUrl.startsWith('https:')
  if (production && setting !== undefined && !isHttps) {
    read.problem('PUBLIC_URL', 'must be https when NODE_ENV=production (the session cookie is only Secure and __Host- over https)')
  }
  return { publicUrl, publicOrigin: new URL(publicUrl).origin, isHttps, given: setting !== undefined }
}

export function readTrustProxy (read: DeclaredReader, production: boolean): string[] {
  // `none`: no proxy in front, on purpose (src/config/unset-on-purpose.ts).
  const trustProxy = readOptionalSetting(read, 'TRUST_PROXY', production) === undefined ? [] : read.list('TRUST_PROXY')
  for (const entry of trustProxy) {
    if (!isAddressOrCidr(entry)) read.problem('TRUST_PROXY', `"${entry}" is not an IP address or CIDR range`)
    // Fastify's proxy-address matcher throws on a /0 at start; say why instead, in any environment.
    else if (/\/0+$/.test(entry)) read.problem('TRUST_PROXY', `"${entry}" trusts every address; list only the reverse proxies' addresses`)
  }
  const everyone = production ? trustsEveryone(trustProxy.filter((entry) => isAddressOrCidr(entry) && !/\/0+$/.test(entry))) : undefined
  if (everyone !== undefined) {
    read.problem('TRUST_PROXY', `${everyone}, so anyone could claim any client address or https; list only the reverse proxies' addresses (NODE_ENV=production)`)
  }
  return trustProxy
}

/** PUBLIC_URL's origin and those of ALLOWED_ORIGINS, each once. */
export function readAllowedOrigins (read: DeclaredReader, address: PublicAddress, production: boolean): string[] {
  const { publicOrigin } = address
  const allowed = read.list('ALLOWED_ORIGINS').map((origin) => {
    const url = read.url('ALLOWED_ORIGINS', origin)
    if (url === undefined) return ''
    if (new URL(url).origin !== url) {
      read.problem('ALLOWED_ORIGINS', `"${origin}" must be an origin (scheme, host, port) without a path`)
      return url
    }
    if (production && url.startsWith('http:')) {
      read.problem('ALLOWED_ORIGINS', `"${origin}" is plain http; only https origins are allowed when NODE_ENV=production`)
      return url
    }
    // The session cookie never goes with a request from another site: a page there could call
    // media-bff but would never be signed in.
    if (address.given && !isSameSite(url, publicOrigin)) {
      const why = `"${origin}" is not the same site as PUBLIC_URL (${siteOf(publicOrigin)}): the session cookie is never sent from it, so its pages are never signed in. Serve that site under PUBLIC_URL's site (best: the same origin, with BASE_PATH)`
      if (!production) read.warn('ALLOWED_ORIGINS', why)
      else if (address.isHttps) read.problem('ALLOWED_ORIGINS', `${why} (NODE_ENV=production)`)
    }
    return url
  })
  return [...new Set([publicOrigin, ...allowed.filter((origin) => origin !== '')])]
}

/**
 * FRAME_ANCESTORS: the origins whose pages may frame media-bff's pages and the site's pages that
 * use it. Framing needs the session cookie to go with a frame's calls (SameSite=None, Partitioned),
 * which browsers take only over https.
 */
export function readFrameAncestors (read: DeclaredReader, address: PublicAddress, production: boolean): string[] {
  const origins = read.list('FRAME_ANCESTORS').flatMap((origin) => {
    const url = read.url('FRAME_ANCESTORS', origin)
    if (url === undefined) return []
    if (new URL(url).origin !== url) {
      read.problem('FRAME_ANCESTORS', `"${origin}" must be an origin (scheme, host, port) without a path`)
      return []
    }
    if (production && url.startsWith('http:')) read.problem('FRAME_ANCESTORS', `"${origin}" is plain http; only https origins are allowed when NODE_ENV=production`)
    return [url]
  })
  if (origins.length > 0 && !address.isHttps) read.problem('FRAME_ANCESTORS', 'needs an https PUBLIC_URL: a framed page\'s session cookie is SameSite=None and Partitioned, which browsers take only when it is Secure')
  return [...new Set(origins)]
}
