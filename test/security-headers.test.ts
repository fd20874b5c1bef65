// Every answer carries the security headers; HSTS only when PUBLIC_URL is https.
import t from 'tap'
import { startStack } from './helpers/bff.js'

t.test('security headers on JSON answers, errors and the demo page', async (t) => {
  const stack = await startStack({ env: { DEMO_SITE: 'on' } })
  t.teardown(stack.close)
  const browser = stack.bff.browser()
  for (const path of ['/auth/session', '/healthz', '/no-such-route', '/']) {
    const answer = await browser.get(path)
    const csp = String(answer.headers['content-security-policy'])
    t.match(csp, /default-src 'self'/, `${path}: CSP`)
    t.match(csp, /frame-ancestors 'none'/)
    t.match(csp, /connect-src 'self' https: http:/, 'the http emulator upload host is reachable from the page')
    t.equal(answer.headers['x-content-type-options'], 'nosniff')
    t.equal(answer.headers['referrer-policy'], 'same-origin')
    t.equal(answer.headers['cross-origin-resource-policy'], 'same-origin')
    t.notOk(answer.headers['strict-transport-security'], 'no HSTS over plain http')
  }
})

t.test('HSTS and a pinned connect-src behind https', async (t) => {
  const stack = await startStack({ env: { TRUST_PROXY: '127.0.0.1', UPLOAD_ALLOWED_HOSTS: 'upload.media.example' }, publicUrl: 'https://bff.example' })
  t.teardown(stack.close)
  const answer = await stack.bff.browser({ 'x-forwarded-proto': 'https' }).get('/healthz')
  t.match(String(answer.headers['strict-transport-security']), /max-age=31536000; includeSubDomains/)
  t.match(String(answer.headers['content-security-policy']), /connect-src 'self' https:\/\/upload\.media\.example http:/)
})
