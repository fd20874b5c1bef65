// /docs for people and for programs (plugins/docs.ts): a browser that asks for HTML gets Redoc
// rendering the description, under the page's own CSP, in real Chromium (its script and the spec
// from media-bff itself, nothing from elsewhere, no violation); anyone who asks for JSON, or for
// anything at all, gets the OpenAPI text. Under BASE_PATH the page finds both below the path.
import t from 'tap'
import { request } from 'undici'
import { preferredType } from '../../src/preferred-type.js'
import { openDemo } from '../browser/demo-run.js'

t.test('preferredType: q values, exact types before wildcards, the first offered otherwise', async (t) => {
  const offered = ['application/json', 'text/html'] as const
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['text/html', 'text/html'],
    // What Chromium and Firefox send on a navigation.
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', 'text/html'],
    ['application/json, text/plain, */*', 'application/json'],
    ['text/html;q=0.5, application/json', 'application/json'],
    ['text/html, application/json;q=0.9', 'text/html'],
    ['text/*', 'text/html'],
    ['image/png', 'application/json'],
    ['text/html;q=0, */*', 'application/json'],
    ['TEXT/HTML', 'text/html'],
    ['text/html;q=abc', 'application/json']
  ]
  for (const [accept, expected] of cases) t.equal(preferredType(accept, offered), expected, String(accept))
})

for (const basePath of ['', '/media-bff']) {
  t.test(`a browser is shown the API reference${basePath === '' ? '' : ' under BASE_PATH'}; a program gets the JSON`, async (t) => {
    const { stack, page, problems } = await openDemo(t, basePath === '' ? {} : { BASE_PATH: basePath })
    const docs = `${stack.bff.url}${basePath}/docs`

    for (const accept of ['application/json', '*/*', undefined]) {
      const answer = await request(docs, { headers: accept === undefined ? {} : { accept } })
      t.match(answer.headers['content-type'], /^application\/json/, `Accept: ${String(accept)}`)
      t.equal(answer.headers.vary, 'Accept')
      t.match(await answer.body.json(), { openapi: '3.1.0' })
    }
    const html = await request(docs, { headers: { accept: 'text/html' } })
    t.match(html.headers['content-type'], /^text\/html/)
    t.match(html.headers['content-security-policy'], /script-src 'self';.*worker-src blob:/)
    t.match(await html.body.text(), '<redoc spec-url="docs"></redoc>')

    // Redoc's menu always shows its maker's logo from their CDN: the page's policy blocks it (and
    // the logo hides itself), so nothing leaves for another host. Anything else is a failure.
    const VENDOR_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg'
    const violations: string[] = []
    page.on('console', (message) => { if (/Content Security Policy/i.test(message.text())) violations.push(message.text()) })
    const elsewhere = new Set<string>()
    page.on('request', (asked) => {
      const url = asked.url()
      // The search worker Redoc starts from a blob: of this very page.
      if (!url.startsWith(stack.bff.url) && !url.startsWith(`blob:${stack.bff.url}/`)) elsewhere.add(url)
    })
    await page.goto(docs)
    await page.waitForSelector('h2:has-text("Register an upload; the browser then posts files to url_upload_direct")', { timeout: 30_000 })
    t.ok(await page.locator('h2:has-text("The folders and files in a folder")').isVisible(), 'the relayed reads are there')
    t.equal(await page.title(), 'media-bff HTTP API')
    t.same([...elsewhere].filter((url) => url !== VENDOR_LOGO), [], 'nothing asked of another host but the logo')
    t.same(violations.filter((text) => !text.includes(`'${VENDOR_LOGO}'`)), [], 'no other CSP violation')
    t.ok(!elsewhere.has(VENDOR_LOGO) || violations.some((text) => text.includes(`'${VENDOR_LOGO}'`) && text.includes('blocked')), 'the logo, if asked for, was blocked')
    t.same(problems.filter((text) => !text.includes(`'${VENDOR_LOGO}'`)), [])
  })
}
