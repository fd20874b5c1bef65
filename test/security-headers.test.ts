// Every answer carries the security headers, each pinned to its exact value here (they are
// written out in plugins/security-headers.ts); HSTS only when PUBLIC_URL is https.
import t from 'tap'
import { startStack } from './helpers/bff.js'

// The same on every answer, whatever the configuration.
const FIXED = {
  'cross-origin-opener-policy': 'same-origin-allow-popups',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0'
}
const SECURITY_HEADERS = [...Object.keys(FIXED), 'content-security-policy', 'strict-transport-security']

const csp = (connectSrc: string): string => [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  `connect-src ${connectSrc}`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'"
].join('; ')

const securityHeadersOf = (headers: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(SECURITY_HEADERS.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]))

t.test('plain http (the local demo): every header on JSON answers, errors and the demo page, no HSTS', async (t) => {
  const stack = await startStack({ env: { DEMO_SITE: 'on' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  for (const path of ['/auth/session', '/healthz', '/no-such-route', '/']) {
    const answer = await browser.get(path)
    t.same(securityHeadersOf(answer.headers), {
      ...FIXED,
      // Any https upload host, and http too because the emulator's tenant is plain http.
      'content-security-policy': csp("'self' https: http:")
    }, `${path} (${answer.status})`)
  }
  const refused = await browser.post('/auth/logout', undefined, { 'x-csrf': '' })
  t.equal(refused.status, 403)
  t.same(securityHeadersOf(refused.headers), { ...FIXED, 'content-security-policy': csp("'self' https: http:") }, 'a refusal too')
})

t.test('https behind a trusted proxy: HSTS for this host alone, and connect-src pinned to UPLOAD_ALLOWED_HOSTS', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1', UPLOAD_ALLOWED_HOSTS: 'upload.media.example,upload2.media.example:8443' }, publicUrl: 'https://bff.example' })
  t.teardown(stack.close)
  const answer = await stack.bff.browser({ 'x-forwarded-proto': 'https' }).get('/healthz')
  t.same(securityHeadersOf(answer.headers), {
    ...FIXED,
    // No includeSubDomains unless asked: on a shared origin it would speak for the whole site.
    'strict-transport-security': 'max-age=31536000',
    // The emulator's tenant is still plain http, hence http:.
    'content-security-policy': csp("'self' https://upload.media.example https://upload2.media.example:8443 http:")
  })
})

t.test('HSTS_INCLUDE_SUBDOMAINS=on: the site\'s subdomains bound to https too', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1', HSTS_INCLUDE_SUBDOMAINS: 'on' }, publicUrl: 'https://bff.example' })
  t.teardown(stack.close)
  const answer = await stack.bff.browser({ 'x-forwarded-proto': 'https' }).get('/healthz')
  t.equal(answer.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains')
})
