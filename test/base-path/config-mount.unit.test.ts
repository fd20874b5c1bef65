// BASE_PATH and OAUTH_REDIRECT_URI as configuration reads them (src/config/mount.ts): the base
// path's forms, a PUBLIC_URL with a path refused in favour of it, and the callback route taken
// from the redirect URI, or refused at start when the two disagree.
import t from 'tap'
import fc from 'fast-check'
import { loadConfig } from '../../src/config/config.js'
import { problemsOf, validEnv } from '../helpers/config-env.js'

const valid = { ...validEnv, PUBLIC_URL: 'https://site.example.org' }
const production = { ...valid, NODE_ENV: 'production', UPLOAD_ALLOWED_HOSTS: 'upload.media.example' }

t.test('no BASE_PATH: the origin\'s root, the callback at /auth/callback', async (t) => {
  const config = loadConfig(valid)
  t.equal(config.basePath, '')
  t.equal(config.oauth.redirectUri, 'https://site.example.org/auth/callback')
  t.equal(config.oauth.callbackPath, '/auth/callback')
})

t.test('a BASE_PATH moves the default redirect URI with it; a trailing slash is dropped', async (t) => {
  for (const setting of ['/media-bff', '/media-bff/', '/tools/media-bff']) {
    const config = loadConfig({ ...production, BASE_PATH: setting })
    const path = setting.replace(/\/$/, '')
    t.equal(config.basePath, path, setting)
    t.equal(config.oauth.redirectUri, `https://site.example.org${path}/auth/callback`)
    t.equal(config.oauth.callbackPath, '/auth/callback')
  }
  t.equal(loadConfig({ ...valid, BASE_PATH: '/' }).basePath, '', '/ is the root')
})

t.test('a BASE_PATH that is not a plain path is refused, naming it', async (t) => {
  for (const setting of ['media-bff', '/media bff', '/a/../b', '/./x', '//x', '/x?y', '/x#y', '/%2e%2e', '/x//y']) {
    t.same(problemsOf({ ...valid, BASE_PATH: setting }).filter((p) => p.startsWith('BASE_PATH')).length, 1, setting)
  }
})

t.test('a PUBLIC_URL with a path is refused, pointing at BASE_PATH', async (t) => {
  t.same(problemsOf({ ...valid, PUBLIC_URL: 'https://site.example.org/media-bff' }), [
    'PUBLIC_URL: must be an origin without a path, got the path /media-bff; to answer under a path of that origin, set BASE_PATH=/media-bff'
  ])
})

t.test('the callback route is the redirect URI\'s own path under BASE_PATH', async (t) => {
  const config = loadConfig({ ...production, BASE_PATH: '/media-bff', OAUTH_REDIRECT_URI: 'https://site.example.org/media-bff/oauth/return' })
  t.equal(config.oauth.callbackPath, '/oauth/return')
  t.equal(config.oauth.redirectUri, 'https://site.example.org/media-bff/oauth/return')
})

t.test('a redirect URI outside BASE_PATH is refused at start, in any environment', async (t) => {
  for (const uri of ['https://site.example.org/auth/callback', 'https://site.example.org/media-bffx/auth/callback', 'https://site.example.org/media-bff']) {
    for (const env of [production, valid]) {
      const problems = problemsOf({ ...env, BASE_PATH: '/media-bff', OAUTH_REDIRECT_URI: uri })
      t.equal(problems.length, 1, uri)
      t.match(problems[0], /^OAUTH_REDIRECT_URI: .* is not under BASE_PATH \(\/media-bff\); .*Use https:\/\/site\.example\.org\/media-bff\/auth\/callback/)
    }
  }
})

t.test('property: any plain base path gives a default redirect URI on PUBLIC_URL\'s origin that lies under it', async (t) => {
  const segment = fc.stringMatching(/^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,11}$/).filter((s) => s !== '.' && s !== '..')
  fc.assert(fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
    const basePath = `/${segments.join('/')}`
    const config = loadConfig({ ...production, BASE_PATH: basePath })
    const uri = new URL(config.oauth.redirectUri)
    return config.basePath === basePath && uri.origin === 'https://site.example.org' &&
      uri.pathname === `${basePath}${config.oauth.callbackPath}`
  }))
})

t.test('a redirect URI on one of media-bff\'s own routes is refused at start', async (t) => {
  for (const path of ['/auth/login', '/auth/session', '/api/folders/0', '/events', '/client/x', '/healthz']) {
    const problems = problemsOf({ ...production, BASE_PATH: '/media-bff', OAUTH_REDIRECT_URI: `https://site.example.org/media-bff${path}` })
    t.equal(problems.length, 1, path)
    t.match(problems[0], /^OAUTH_REDIRECT_URI: .* is one of media-bff's own routes/)
  }
})
