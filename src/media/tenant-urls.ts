// URLs the media service hands back are input. One that media-bff will later call with the
// user's token must be on the tenant's own API: same origin, under its /api path, no
// credentials. Anything else is refused before it is stored or followed.

/** The URL, normalised, when it lies under `apiUrl`; undefined otherwise. */
export function underTenantApi (value: unknown, apiUrl: string): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined
  let url: URL
  let api: URL
  try {
    url = new URL(value)
    api = new URL(apiUrl)
  } catch {
    return undefined
  }
  if (url.origin !== api.origin || url.username !== '' || url.password !== '' || url.hash !== '') return undefined
  // The parser has already resolved dot segments (also percent-encoded ones), so a prefix
  // check on the normalised path cannot be walked out of.
  const apiPath = api.pathname.replace(/\/+$/, '')
  if (!url.pathname.startsWith(`${apiPath}/`)) return undefined
  // An encoded slash or backslash could still be decoded into a walk by the server behind.
  if (/%2f|%5c/i.test(url.pathname)) return undefined
  return url.href
}
