// The relay's link rewrite: its quick path for plain links agrees with the full URL check on
// every input, so speed never changes which links are made local.
import t from 'tap'
import fc from 'fast-check'
import { linkRewriting, localLink } from '../../src/relay/local-links.js'
import { JsonLinkRewriter } from '../../src/relay/json-link-rewriter.js'
import { underTenantApi } from '../../src/media/tenant-urls.js'

const target = { apiUrl: 'https://tenant.example/api', publicApiUrl: 'https://bff.example/api' }
const apiBase = 'https://tenant.example/api'
const slow = (value: string): string | undefined => {
  const href = underTenantApi(value, target.apiUrl)
  return href === undefined ? undefined : `${target.publicApiUrl}${href.slice(apiBase.length)}`
}

t.test('quick and full paths agree', async (t) => {
  const suffix = fc.oneof(fc.webPath(), fc.string(), fc.constantFrom('/files/1', '/folders/0/contents?files=0', '/../x', '/%2e%2e/x', '/a//b', '/a/./b', '/a?x=%2F', '/a#f', 'x/y', ''))
  const prefix = fc.constantFrom(apiBase, 'https://TENANT.example/api', 'https://tenant.example:443/api', 'http://tenant.example/api', 'https://tenant.example/apix', 'https://other.example/api')
  fc.assert(fc.property(prefix, suffix, (start, rest) => {
    const value = `${start}${rest}`
    t.equal(localLink(value, target, apiBase), slow(value), value)
  }), { numRuns: 2000 })
  t.equal(localLink(`${apiBase}/files/9?x=1`, target, apiBase), 'https://bff.example/api/files/9?x=1')
  t.equal(localLink(`${apiBase}/../internal`, target, apiBase), undefined)
})

t.test('the byte-level rewrite of plain links gives the same bytes as the string path', async (t) => {
  const options = linkRewriting(target)
  const stringOnly = { marker: options.marker, rewrite: options.rewrite }
  const suffix = fc.oneof(fc.webPath(), fc.webQueryParameters().map((query) => `/files/1?${query}`), fc.string(), fc.constantFrom('/a//b', '/a?b/c', '/a?x=1?y', '/', '', '/%41', '/files/1?x=%2F'))
  const prefix = fc.constantFrom(apiBase, `${apiBase}/`, 'https://tenant.example/apix', 'https://other.example/api')
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
