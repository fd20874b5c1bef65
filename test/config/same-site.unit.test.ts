// Which origins can be signed in (src/config/same-site.ts and the ALLOWED_ORIGINS check of
// src/config/config.ts): only PUBLIC_URL's own site, as browsers judge sites (scheme and registrable
// domain, private suffixes included). Another site is refused in production and warned about
// elsewhere (logged at start: test/config/start-warnings.test.ts).
import t from 'tap'
import fc from 'fast-check'
import { isSameSite, siteOf } from '../../src/config/same-site.js'
import { loadConfig } from '../../src/config/config.js'
import { problemsOf, validEnv } from '../helpers/config-env.js'

const production = { ...validEnv, NODE_ENV: 'production', UPLOAD_ALLOWED_HOSTS: 'upload.media.example' }

t.test('sites as browsers judge them', async (t) => {
  t.equal(siteOf('https://media.example.org'), 'https://example.org')
  t.ok(isSameSite('https://www.example.org', 'https://media.example.org'), 'sibling subdomains')
  t.ok(isSameSite('https://example.org:8443', 'https://media.example.org'), 'ports do not matter')
  t.notOk(isSameSite('http://www.example.org', 'https://media.example.org'), 'schemes do')
  t.notOk(isSameSite('https://example.net', 'https://example.org'))
  t.notOk(isSameSite('https://a.github.io', 'https://b.github.io'), 'a private public suffix separates sites')
  t.ok(isSameSite('https://a.b.example.co.uk', 'https://c.example.co.uk'))
  t.notOk(isSameSite('https://example.co.uk', 'https://other.co.uk'))
  t.ok(isSameSite('http://127.0.0.1:3000', 'http://127.0.0.1:4000'), 'an address is its own site')
  t.notOk(isSameSite('http://localhost:3000', 'http://127.0.0.1:3000'))
})

t.test('property: any subdomain of a registrable domain is its site; another registrable domain is not', async (t) => {
  // Plain labels: a valid URL's (no hyphens, so no xn-- label that is not punycode).
  const label = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/)
  fc.assert(fc.property(fc.array(label, { maxLength: 3 }), fc.array(label, { maxLength: 3 }), label, label, (left, right, domain, other) => {
    // Under a name of its own: some short names under .org are public suffixes themselves (ae.org).
    const host = (labels: string[], name: string): string => `https://${[...labels, `site-${name}`, 'org'].join('.')}`
    return isSameSite(host(left, domain), host(right, domain)) && (domain === other || !isSameSite(host(left, domain), host(right, other)))
  }))
})

t.test('production refuses an ALLOWED_ORIGINS entry of another site; elsewhere it loads with a warning', async (t) => {
  t.same(problemsOf({ ...production, ALLOWED_ORIGINS: 'https://www.example.org' }), [], 'a sibling subdomain')
  const problems = problemsOf({ ...production, ALLOWED_ORIGINS: 'https://www.example.org,https://shop.example.net' })
  t.equal(problems.length, 1)
  t.match(problems[0], /^ALLOWED_ORIGINS: "https:\/\/shop\.example\.net" is not the same site as PUBLIC_URL \(https:\/\/example\.org\): the session cookie is never sent from it/)
  const config = loadConfig({ ...validEnv, ALLOWED_ORIGINS: 'https://shop.example.net' })
  t.equal(config.warnings.length, 1)
  t.match(config.warnings[0], /^ALLOWED_ORIGINS: "https:\/\/shop\.example\.net" is not the same site/)
  t.same(loadConfig(validEnv).warnings, [])
})
