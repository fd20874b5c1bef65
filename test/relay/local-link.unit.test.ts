// The relay's link rewrite: its quick paths (plain links on their bytes, strings that cannot be
// http(s) URLs refused before parsing) agree with the full URL check on every input, so speed
// never changes which links are made local.
import t from 'tap'
import fc from 'fast-check'
import { linkRewriting, localLink, localLinksFor } from '../../src/relay/local-links.js'
import { JsonLinkRewriter } from '../../src/relay/json-link-rewriter.js'
import { mayBeHttpUrl, underTenantApi } from '../../src/media/tenant-urls.js'

const target = { apiUrl: 'https://tenant.example/api', publicApiUrl: 'https://bff.example/api' }
const apiBase = 'https://tenant.example/api'
const links = localLinksFor(target)

/** The full check as it was before the pre-filter: both URLs parsed, every time. */
function fullCheck (value: string, apiUrl: string): string | undefined {
  if (value.length > 2048) return undefined
  let url: URL
  let api: URL
  try {
    url = new URL(value)
    api = new URL(apiUrl)
  } catch {
    return undefined
  }
  if (url.origin !== api.origin || url.username !== '' || url.password !== '' || url.hash !== '') return undefined
  const apiPath = api.pathname.replace(/\/+$/, '')
  if (!url.pathname.startsWith(`${apiPath}/`)) return undefined
  if (/%2f|%5c/i.test(url.pathname)) return undefined
  return url.href
}

/** Paths outside the API's that the URL parser turns into paths under it, or that only look outside. */
const walksIntoTheApi = ['/x/../api/files/1', '/./api/files/1', '/x/%2e%2e/api/a', '/.%2E/api/a', '/x/..\\api/a', '/x\t/../api/a', '/api', '/api/', '/API/a', '/apix/a', '/thumbs/a.jpg', '/a.b/c..d?/../api/x', '/x#/../api/x', '/x/..?a', '/x/.']

/** Strings built to sit on the pre-filter's edge: scheme letters in any case, split by tabs, newlines and controls. */
const edgy = fc.array(fc.oneof(
  fc.constantFrom('h', 'H', 't', 'T', 'p', 'P', 's', 'S', ':', '/', '//', '\\', '\\\\', '\t', '\n', '\r', ' ', '\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\u00a0', '\u2028', '\ufeff',
    'http', 'HTTP', 'https', 'hTtPs', 'ftp', 'tenant.example', 'TENANT.example:443', 'tenant.example:80', '/api', '/api/', '/api/x', '/../', '%2e', '@', '?', '#', 'x', '1'),
  fc.string({ maxLength: 3 })
), { maxLength: 14 }).map((parts) => parts.join(''))
const slow = (value: string): string | undefined => {
  const href = underTenantApi(value, target.apiUrl)
  return href === undefined ? undefined : `${target.publicApiUrl}${href.slice(apiBase.length)}`
}

t.test('quick and full paths agree', async (t) => {
  const suffix = fc.oneof(fc.webPath(), fc.string(), fc.constantFrom('/files/1', '/folders/0/contents?files=0', '/../x', '/%2e%2e/x', '/a//b', '/a/./b', '/a?x=%2F', '/a#f', 'x/y', ''))
  const prefix = fc.constantFrom(apiBase, 'https://TENANT.example/api', 'https://tenant.example:443/api', 'http://tenant.example/api', 'https://tenant.example/apix', 'https://other.example/api')
  fc.assert(fc.property(prefix, suffix, (start, rest) => {
    const value = `${start}${rest}`
    t.equal(localLink(value, links), slow(value), value)
  }), { numRuns: 2000 })
  t.equal(localLink(`${apiBase}/files/9?x=1`, links), 'https://bff.example/api/files/9?x=1')
  t.equal(localLink(`${apiBase}/../internal`, links), undefined)
})

t.test('the pre-filter: a string it turns away is one the full check refuses, and the results are today\'s', async (t) => {
  const apis = ['https://tenant.example/api', 'http://tenant.example:80/api/', 'http://127.0.0.1:4000/api']
  let turnedAway = 0
  fc.assert(fc.property(fc.oneof(edgy, fc.string(), fc.webUrl(), fc.constantFrom(...apis).map((api) => `${api}/x`)), fc.constantFrom(...apis), (value, apiUrl) => {
    const full = fullCheck(value, apiUrl)
    if (!mayBeHttpUrl(value)) {
      turnedAway++
      if (full !== undefined) throw new Error(`the pre-filter turned away ${JSON.stringify(value)}, which the full check accepts as ${full}`)
      let parsed: URL | undefined
      try { parsed = new URL(value) } catch { parsed = undefined }
      if (parsed !== undefined && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) throw new Error(`${JSON.stringify(value)} parses as ${parsed.href}`)
    }
    if (underTenantApi(value, apiUrl) !== full) throw new Error(`underTenantApi(${JSON.stringify(value)}, ${apiUrl}) differs from the full check`)
  }), { numRuns: 20_000 })
  t.ok(turnedAway > 1000, `${turnedAway} strings turned away`)
  const accepted = ['\u0000 \u001f https://tenant.example/api/x', 'ht\ttps://tenant.example/api/x', 'H\nT\rT\tP\tS:\n//tenant.example/api/x', 'HTTPS://TENANT.EXAMPLE/api/x', 'https:\\\\tenant.example\\api\\x', 'https:tenant.example/api/x']
  for (const value of accepted) {
    t.ok(mayBeHttpUrl(value), JSON.stringify(value))
    t.equal(underTenantApi(value, apis[0] as string), 'https://tenant.example/api/x', JSON.stringify(value))
  }
  for (const value of ['\u00a0https://tenant.example/api/x', 'tenant.example/api/x', 'https//tenant.example/api/x', 'httpss://tenant.example/api/x', 'ftp://tenant.example/api/x', 'tenant.example text']) {
    t.notOk(mayBeHttpUrl(value), JSON.stringify(value))
  }
})

t.test('the byte-level rewrite of plain links gives the same bytes as the string path', async (t) => {
  const options = linkRewriting(target)
  const stringOnly = { marker: options.marker, rewrite: options.rewrite }
  const suffix = fc.oneof(fc.webPath(), fc.webQueryParameters().map((query) => `/files/1?${query}`), fc.string(), fc.constantFrom('/a//b', '/a?b/c', '/a?x=1?y', '/', '', '/%41', '/files/1?x=%2F', ...walksIntoTheApi))
  const prefix = fc.constantFrom(apiBase, `${apiBase}/`, 'https://tenant.example/apix', 'https://other.example/api', 'https://tenant.example', 'https://tenant.example/thumbs')
  // Split anywhere: a link may begin in one chunk and end in another.
  const run = (rewriterOptions: typeof options, body: Buffer, cut: number): string => {
    const rewriter = new JsonLinkRewriter(rewriterOptions)
    const out = Buffer.concat([rewriter.push(body.subarray(0, cut)), rewriter.push(body.subarray(cut))])
    rewriter.end()
    return out.toString()
  }
  fc.assert(fc.property(prefix, suffix, fc.nat(), (start, rest, at) => {
    const body = Buffer.from(JSON.stringify({ link: `${start}${rest}`, again: [`${start}${rest}`] }))
    const cut = at % (body.length + 1)
    t.equal(run(options, body, cut), run(stringOnly, body, body.length), `${start}${rest} cut at ${cut}`)
  }), { numRuns: 3000 })
})

t.test('a link kept on its bytes is one the full check keeps', async (t) => {
  const { keepsPlain } = linkRewriting(target)
  if (keepsPlain === undefined) throw new Error('the relay keeps no link on its bytes')
  let kept = 0
  const path = fc.oneof(fc.webPath(), fc.string(), fc.constantFrom(...walksIntoTheApi), fc.array(fc.constantFrom('/', '.', '..', 'api', 'a', '%2e', '\\', '?', '#', '\t'), { maxLength: 8 }).map((parts) => parts.join('')))
  fc.assert(fc.property(fc.constantFrom('https://tenant.example', 'https://tenant.example/', 'https://TENANT.example', 'http://tenant.example'), path, (origin, rest) => {
    const value = `${origin}${rest}`
    const raw = Buffer.from(value)
    if (!keepsPlain(raw, 0, raw.length)) return true
    kept++
    return localLink(value, links) === undefined
  }), { numRuns: 5000 })
  t.ok(kept > 500, `the quick path took ${kept} of them, and the full check kept each`)
})
