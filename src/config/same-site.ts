// Whether two origins are the same site as browsers judge it: the same scheme and the same
// registrable domain (a name under a public suffix, private ones such as github.io included), or
// the same host when it has none (an IP address, localhost). The session cookie is host-only and
// SameSite=Strict, so only a page of PUBLIC_URL's own site is ever signed in
// (docs/guide/integrate.md, "Which origins can work").
import { getDomain } from 'tldts'

export function siteOf (origin: string): string {
  const { protocol, hostname } = new URL(origin)
  return `${protocol}//${getDomain(hostname, { allowPrivateDomains: true }) ?? hostname}`
}

export function isSameSite (a: string, b: string): boolean {
  return siteOf(a) === siteOf(b)
}
