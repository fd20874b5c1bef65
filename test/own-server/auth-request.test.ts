// The site's own server behind real nginx (docker/nginx-same-origin.conf): nginx asks media-bff
// (two production replicas on Redis, BASE_PATH=/media-bff) with auth_request before every request
// to the editors' area, and hands the site's server (h3, running the Nuxt middleware of
// docs/recipes/own-server/) who is signed in and the assertion, which it verifies with jose
// against media-bff's key set. Signed out: to the sign-in and back to the page; a scope missing:
// to the consent; a client's own identity headers replaced; an expired assertion, one signed by a
// foreign key and one for another audience refused by the recipe's verification; nothing of the
// cookie or the assertion in nginx's log or media-bff's.
import { createServer, type Server } from 'node:http'
import t from 'tap'
import { createApp, defineEventHandler, getRequestHeader, toNodeListener } from 'h3'
import { generateKeyPair, SignJWT, importPKCS8 } from 'jose'
import { sameOriginNginxConf } from '../helpers/nginx.js'
import { freePort } from '../helpers/ports.js'
import { startProductionStack } from '../production/stack.js'
import { consent, onServer } from '../helpers/sign-in.js'
import { mediaBffMiddleware } from '../../docs/recipes/own-server/nuxt-server-middleware.js'
import { assertionVerifier, type SignedInPerson } from '../../docs/recipes/own-server/verify-assertion.js'

const BASE = '/media-bff'

interface SiteAnswer { person: SignedInPerson | undefined, user: string | undefined, scopes: string | undefined, cookie: string | undefined }

/** The site's own server: the Nuxt middleware, then a page that says whom it serves. */
async function startSiteServer (port: number, check: Parameters<typeof mediaBffMiddleware>[0]): Promise<Server> {
  const app = createApp()
  app.use(mediaBffMiddleware(check))
  app.use('/editors', defineEventHandler((event): SiteAnswer => ({
    person: event.context.person as SignedInPerson | undefined,
    user: getRequestHeader(event, 'x-auth-request-user'),
    scopes: getRequestHeader(event, 'x-auth-request-scopes'),
    cookie: getRequestHeader(event, 'cookie')
  })))
  const server = createServer(toNodeListener(app))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  return server
}

t.test('nginx auth_request in front of the site\'s own server', async (t) => {
  // nginx names the site's server as it starts; the server needs PUBLIC_URL, known only once the
  // stack is up: it starts then, on the port nginx was given.
  const sitePort = await freePort()
  const stack = await startProductionStack(t, {
    env: { BASE_PATH: BASE, OAUTH_SCOPES: 'basic user.info' },
    nginx: { confFile: sameOriginNginxConf, siteServer: `127.0.0.1:${sitePort}` }
  })
  const issuer = `${stack.publicUrl}${BASE}`
  const settings = { jwksUrl: `${issuer}/.well-known/jwks.json`, issuer, audience: issuer }
  const server = await startSiteServer(sitePort, settings)
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const site = { address: `127.0.0.1:${sitePort}` }
  const browser = stack.browser()

  const out = await browser.navigate('/editors/drafts?id=7')
  t.equal(out.status, 302, 'signed out: sent to sign in')
  const login = new URL(out.location ?? '')
  t.equal(`${login.origin}${login.pathname}`, `${issuer}/auth/login`)
  t.equal(login.searchParams.get('return_to'), '/editors/drafts?id=7', 'back to the page asked about, named by nginx')
  t.equal(out.headers['cache-control'], 'no-store')

  // The sign-in, as the browser goes through it: the login nginx sent it to, consent, callback.
  const started = await browser.navigate(out.location ?? '')
  const callback = await browser.navigate(onServer(browser, await consent(browser, started.location ?? '', 'alice')))
  t.equal(callback.location, '/editors/drafts?id=7', 'signed in, back on the page')

  const page = await browser.navigate('/editors/drafts?id=7', { 'x-auth-request-user': 'mallory', 'x-media-bff-assertion': 'forged' })
  t.equal(page.status, 200, page.text)
  const answer = page.json() as SiteAnswer
  t.match(answer.person, { id: '1', email: 'alice@example.test', tenant: 'default', scopes: ['basic', 'user.info'] }, 'the site\'s server knows who: the assertion verified')
  t.equal(answer.user, '1', 'the client\'s own X-Auth-Request-User replaced')
  t.equal(answer.scopes, 'basic user.info')
  t.notMatch(answer.cookie ?? '', /__Host-Http-media-bff=/, 'the site\'s server never gets media-bff\'s session cookie')
  const withOwn = await browser.navigate('/editors/drafts', { cookie: `site-theme=dark; ${browser.cookieHeader() ?? ''}; site-lang=en` })
  const received = (withOwn.json() as SiteAnswer).cookie ?? ''
  t.ok(received.includes('site-theme=dark') && received.includes('site-lang=en'), `its own cookies still reach it (${received.replace(/=[^;]*/g, '=...')})`)
  t.notMatch(received, /__Host-Http-media-bff=/)

  const noScope = await browser.navigate('/editors/uploads/new')
  t.equal(noScope.status, 302, 'a part that needs upload: sent to the consent')
  const consentUrl = new URL(noScope.location ?? '')
  t.equal(consentUrl.searchParams.get('scope'), 'basic user.info upload')
  t.equal(consentUrl.searchParams.get('return_to'), '/editors/uploads/new')
  const bare = await browser.navigate('/editors/uploads')
  t.equal(bare.status, 302, 'and the part\'s own path, without its slash')
  t.equal(new URL(bare.location ?? '').searchParams.get('scope'), 'basic user.info upload')

  const stranger = stack.browser()
  const forged = await stranger.navigate('/editors/drafts', { 'x-auth-request-user': '1', 'x-media-bff-assertion': String(page.headers['x-media-bff-assertion'] ?? 'x') })
  t.equal(forged.status, 302, 'identity headers from a client mean nothing: nginx asks media-bff')

  // Past the proxy, straight to the site's server: the recipe's verification decides alone.
  const direct = async (assertion: string): Promise<number> => {
    const response = await fetch(`http://${site.address}/editors/drafts`, { headers: { 'x-media-bff-assertion': assertion } })
    await response.arrayBuffer()
    return response.status
  }
  t.equal(await direct('not-a-jwt'), 401)
  const key = await importPKCS8(pem(String(stack.env.ASSERTION_KEYS).split(':')[1] ?? ''), 'ES256')
  const claims = { tenant: 'default', scope: 'basic', auth_time: Math.floor(Date.now() / 1000) - 60, sid: 'h' }
  const made = (signWith: CryptoKey, audience: string, expiresAt: number): Promise<string> =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'a1', typ: 'JWT' }).setIssuer(issuer).setAudience(audience).setSubject('1').setIssuedAt(expiresAt - 120).setExpirationTime(expiresAt).sign(signWith)
  const now = Math.floor(Date.now() / 1000)
  t.equal(await direct(await made(key, issuer, now + 60)), 200, 'the real key, in time: the control')
  t.equal(await direct(await made(key, issuer, now - 1)), 401, 'an expired assertion')
  t.equal(await direct(await made((await generateKeyPair('ES256')).privateKey, issuer, now + 60)), 401, 'one signed by a foreign key under the same id')
  t.equal(await direct(await made(key, 'https://elsewhere.example', now + 60)), 401, 'one for another audience')
  const verify = assertionVerifier(settings)
  t.equal(await verify(undefined), undefined)

  const cookie = [...browser.cookies.values()].join(' ')
  const nginxLog = `${await stack.nginx.accessLog()}${await stack.nginx.errorLog()}`
  t.notOk(nginxLog.includes(cookie), 'no cookie in nginx\'s logs')
  t.notOk(nginxLog.includes('eyJ'), 'no assertion in nginx\'s logs')
  const logs = stack.replicas.map((one) => `${JSON.stringify(one.logs())}${one.stderr()}`).join('')
  t.notOk(logs.includes(cookie), 'no cookie in media-bff\'s logs')
  t.notOk(logs.includes('eyJ'), 'no assertion in media-bff\'s logs')
})

function pem (base64: string): string {
  return `-----BEGIN PRIVATE KEY-----\n${base64.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END PRIVATE KEY-----`
}
