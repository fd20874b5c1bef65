// Security headers for a JSON API that also serves a small demo page. The page posts files
// straight to the media service's upload host, so connect-src allows https (and http only when
// a tenant itself is plain http, as with the local emulator).
//
// The headers depend only on the configuration: they are worked out once at start-up and copied
// onto every reply (working them out per request, as helmet did, cost ~7% of a session call).
// They are written out here rather than taken from helmet, an Express middleware that would have
// to be run against a fake response: a dozen fixed values are easier to review than a library,
// and test/security-headers.test.ts pins each of them.
import fp from 'fastify-plugin'
import type { OutgoingHttpHeaders } from 'node:http'
import type { Config } from '../src/config/config.js'

export default fp(async (app) => {
  const headers = securityHeaders(app.config)
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers)
    done()
  })
}, { name: 'security-headers', dependencies: ['config'] })

function securityHeaders (config: Config): OutgoingHttpHeaders {
  return {
    'content-security-policy': contentSecurityPolicy(config),
    // A page of another origin opened from ours gets no handle on it, nor it on ours; a popup of
    // our own (a sign-in or a consent, routes/auth.ts) whose pages say unsafe-none keeps its
    // opener, so its last page can tell the page that opened it.
    'cross-origin-opener-policy': 'same-origin-allow-popups',
    // Our answers (a user's JSON above all) are not for other sites' <img>, <script> or fetch.
    'cross-origin-resource-policy': 'same-origin',
    // Ask for a process of our own origin, not one shared with the rest of the site.
    'origin-agent-cluster': '?1',
    // Paths may say which folder or upload someone looks at: never tell other origins.
    'referrer-policy': 'same-origin',
    // HSTS only means something over https; includeSubDomains only when asked for, since on a
    // shared origin this header speaks for the whole site.
    ...(config.session.secureCookie ? { 'strict-transport-security': `max-age=31536000${config.hstsIncludeSubdomains ? '; includeSubDomains' : ''}` } : {}),
    'x-content-type-options': 'nosniff',
    // No DNS look-ups ahead of clicks on links from the service's answers.
    'x-dns-prefetch-control': 'off',
    // Old Internet Explorer would open downloads in our origin.
    'x-download-options': 'noopen',
    // frame-ancestors 'none' for browsers that know only this header; it cannot name origins, so
    // with FRAME_ANCESTORS it is left out and the CSP alone says who may frame us.
    ...(config.frameAncestors.length > 0 ? {} : { 'x-frame-options': 'DENY' }),
    // No Flash or PDF cross-domain policy files.
    'x-permitted-cross-domain-policies': 'none',
    // The old XSS auditors did more harm than good (they could be used to blank parts of a page).
    'x-xss-protection': '0'
  }
}

function contentSecurityPolicy (config: Config): string {
  const httpUpstream = [...config.tenants.values()].some((tenant) => tenant.baseUrl.startsWith('http:'))
  const uploadHosts = config.upload.allowedHosts.map((host) => `https://${host}`)
  const directives: Array<[string, string[]]> = [
    ['default-src', ["'self'"]],
    ['script-src', ["'self'"]],
    ['style-src', ["'self'"]],
    ['img-src', ["'self'", 'data:']],
    // The demo page posts files to the upload host itself.
    ['connect-src', ["'self'", ...(uploadHosts.length > 0 ? uploadHosts : ['https:']), ...(httpUpstream ? ['http:'] : [])]],
    ['form-action', ["'self'"]],
    ['frame-ancestors', config.frameAncestors.length > 0 ? ["'self'", ...config.frameAncestors] : ["'none'"]],
    ['base-uri', ["'none'"]],
    ['object-src', ["'none'"]]
  ]
  return directives.map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ')
}
