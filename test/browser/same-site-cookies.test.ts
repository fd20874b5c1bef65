// The cookies as the project's Chromium treats them. The session cookie is SameSite=Strict: the
// media service's redirect back (a navigation another site starts) arrives without it, with the
// sign-in's own Lax cookie, which names the session being replaced; the page's own calls carry
// it. Here the demo is on localhost and the media service on 127.0.0.1: two sites, as in
// production. And whether this Chromium honours RFC 10017's __Host-Http- prefix, which
// media-bff's session cookie carries over https.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { request as httpRequest } from 'undici'
import { launchChromium } from '../helpers/chromium.js'
import { signInAs, waitForAccess, waitForSession } from './demo-steps.js'
import { openDemo } from './demo-run.js'

t.test('sign-in and re-authorization from another site: the callback comes without the Strict session cookie and still replaces the session', async (t) => {
  const { stack, page, context, problems } = await openDemo(t, { OAUTH_SCOPES: 'basic user.info' }, {}, 'localhost')
  const { emulator, bff } = stack
  const site = bff.config.publicUrl
  t.match(site, /^http:\/\/localhost:\d+$/)
  t.not(new URL(emulator.baseUrl).hostname, 'localhost', 'the media service is another site')
  const callbacks: Array<Promise<string | undefined>> = []
  // allHeaders: the Cookie header as sent (headers() leaves it out).
  // The page's and its consent popup's.
  context.on('request', (request) => { if (request.url().startsWith(`${site}/auth/callback`)) callbacks.push(request.allHeaders().then((headers) => headers.cookie)) })

  await page.goto(`${site}/`)
  await waitForSession(page, 'signed-out')
  await signInAs(page, site, emulator.baseUrl, 'alice')
  const cookies = await context.cookies(site)
  const session = cookies.find((cookie) => cookie.name === 'media-bff')
  t.match(session, { sameSite: 'Strict', httpOnly: true, path: '/' }, 'the session cookie is Strict')
  t.equal(await page.textContent('#user-name'), 'Alice Example', 'the page\'s own calls carry it')

  t.equal(await waitForAccess(page), 'grantable')
  // The consent runs in a popup (the demo's): its callback is a navigation from the media service too.
  const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#allow-uploads')])
  await popup.waitForSelector('#user-alice')
  const loginCookie = (await context.cookies(site)).find((cookie) => cookie.name.startsWith('media-bff-login-'))
  t.match(loginCookie, { sameSite: 'Lax', httpOnly: true }, 'the sign-in\'s own cookie is Lax')
  await popup.check('#user-alice')
  await Promise.all([popup.waitForEvent('close'), popup.click('#approve')])
  await waitForSession(page, 'signed-in')
  t.equal(await waitForAccess(page), 'granted', 'the added scope is this session\'s')

  t.equal(callbacks.length, 2)
  for (const header of await Promise.all(callbacks)) {
    t.match(header ?? '', /media-bff-login-\d=/, 'the callback carries the sign-in\'s Lax cookie')
    t.notMatch(header ?? '', /(^|; )media-bff=/, 'and not the Strict session cookie')
  }
  const sessions = await page.evaluate(async () => await (await fetch('/auth/sessions', { headers: { 'x-csrf': '1' } })).json() as { sessions: unknown[] })
  t.equal(sessions.sessions.length, 1, 'the re-authorization replaced the session it began in: none left behind')
  const before = await httpRequest(`${bff.url}/auth/session`, { headers: { 'x-csrf': '1', cookie: `media-bff=${session?.value ?? ''}` } })
  t.match(await before.body.json(), { authenticated: false }, 'the replaced session is gone from the store')
  t.same(problems, [])
})

t.test('this Chromium honours the __Host-Http- prefix: such a cookie only from a server, only HttpOnly', async (t) => {
  const server = createServer((_request, response) => {
    response.setHeader('set-cookie', ['__Host-Http-server=1; Secure; HttpOnly; Path=/', '__Host-Http-not-httponly=2; Secure; Path=/'])
    response.setHeader('content-type', 'text/html')
    response.end('<script>document.cookie = "__Host-Http-script=3; Secure; Path=/"; document.cookie = "plain=4; Path=/"</script>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const chromium = await launchChromium()
  t.teardown(chromium.close)
  const context = await chromium.browser.newContext()
  const page = await context.newPage()
  // localhost is a secure context: Secure cookies are kept over plain http there.
  await page.goto(`http://localhost:${(server.address() as AddressInfo).port}/`)
  await page.waitForFunction(() => document.cookie.includes('plain=4'))
  t.same((await context.cookies()).map((cookie) => cookie.name).sort(), ['__Host-Http-server', 'plain'], 'the script\'s and the non-HttpOnly one refused')
})
