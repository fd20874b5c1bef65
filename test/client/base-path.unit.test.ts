// The browser module with media-bff mounted under a path (its BASE_PATH): `basePath`, a `baseUrl`
// carrying the path, or both, written with any slashes, give one root, and every route the module
// calls is that root and the route with exactly one slash between; links media-bff hands out
// (which carry its base path already) are resolved against its origin, never given the base path
// twice; the module's own fallbacks (a session it learns ended without asking) follow the root.
// A base path is refused before anything is sent when it could leave media-bff's origin or
// change what the path means. Against a stand-in fetch: nothing here reaches a server.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { createMediaBffClient, MediaBffError, type MediaBffClient } from '../../public/client/media-bff-client.js'
import { openLiveChannel } from '../../public/client/live-events.js'

function stubFetch (t: Test, answer: (url: string) => Response = (url) => json(200, url.endsWith('/auth/session') ? { authenticated: false, login_url: '/auth/login' } : {})): string[] {
  const sent: string[] = []
  const original = globalThis.fetch
  globalThis.fetch = async (input: string | URL | Request) => {
    sent.push(String(input))
    return answer(String(input))
  }
  t.teardown(() => { globalThis.fetch = original })
  return sent
}
const json = (status: number, body: unknown): Response => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
const caught = async (promise: Promise<unknown>): Promise<MediaBffError> => await promise.then(() => { throw new Error('did not fail') }, (error: unknown) => error as MediaBffError)

/** The routes a page's calls reach, in the order `callEach` makes them. */
const ROUTES = ['/auth/session', '/auth/logout', '/auth/sessions', '/uploads/register', '/api/folders/7/contents', '/api/files/0/share/link']
async function callEach (bff: MediaBffClient): Promise<void> {
  await bff.getSession()
  await bff.logout()
  await bff.sessions.list().catch(() => {})
  await bff.registerUpload({ folderId: 0 })
  await bff.folders.contents(7)
  await bff.files.shareLink([1])
}

const segment = fc.stringMatching(/^[a-z0-9][a-z0-9._~-]{0,7}$/)
const slashes = (min: number): fc.Arbitrary<string> => fc.integer({ min, max: 3 }).map((n) => '/'.repeat(n))
/** Path segments as a person might write them: any slashes before (at least `lead`), between and after. */
const written = (lead: number): fc.Arbitrary<{ segments: string[], text: string }> => fc.array(segment, { maxLength: 3 }).chain((segments) => fc.tuple(
  fc.constant(segments),
  slashes(lead),
  fc.array(slashes(1), { minLength: segments.length, maxLength: segments.length }),
  slashes(0)
).map(([parts, lead, between, trail]) => ({
  segments: parts,
  text: parts.length === 0 ? lead + trail : lead + parts.map((part, i) => i === 0 ? part : `${between[i] ?? '/'}${part}`).join('') + trail
})))
const origin = fc.constantFrom('', 'https://media.example.org', 'http://127.0.0.1:8080', 'https://site.example')

t.test('every route is the root and the route with one slash between, however the path was written', async (t) => {
  await fc.assert(fc.asyncProperty(origin, written(1), written(0), async (address, inUrl, basePath) => {
    const urlPath = address === '' ? { segments: [], text: '' } : inUrl
    const sent = stubFetch(t)
    const expectedRoot = `${address}${[...urlPath.segments, ...basePath.segments].map((s) => `/${s}`).join('')}`
    const bff = createMediaBffClient({ baseUrl: address === '' ? '' : `${address}${urlPath.text}`, basePath: basePath.text, navigate: () => {} })
    await callEach(bff)
    t.same(sent, ROUTES.map((route) => `${expectedRoot}${route}`), `root ${expectedRoot}`)
    for (const url of sent) t.notMatch(new URL(url, 'https://page.example').pathname, /\/\//, 'no empty segment')
    t.equal(bff.loginUrl({ returnTo: '/' }), `${expectedRoot}/auth/login?return_to=%2F`)
  }), { numRuns: 60 })
})

t.test('a baseUrl with the path and baseUrl plus basePath are the same', async (t) => {
  const both = [
    createMediaBffClient({ baseUrl: 'https://site.example/media-bff', navigate: () => {} }),
    createMediaBffClient({ baseUrl: 'https://site.example', basePath: '/media-bff', navigate: () => {} }),
    createMediaBffClient({ baseUrl: 'https://site.example/', basePath: 'media-bff/', navigate: () => {} })
  ]
  const seen: string[][] = []
  for (const bff of both) {
    const sent = stubFetch(t)
    await callEach(bff)
    seen.push(sent)
  }
  t.same(seen[1], seen[0])
  t.same(seen[2], seen[0])
  t.equal(seen[0]?.[0], 'https://site.example/media-bff/auth/session')
  const sameOrigin = stubFetch(t)
  await createMediaBffClient({ basePath: '/media-bff' }).getSession()
  await createMediaBffClient({ baseUrl: '/media-bff/' }).getSession()
  t.same(sameOrigin, ['/media-bff/auth/session', '/media-bff/auth/session'], 'on this page\'s origin: a path, given either way')
})

t.test('links media-bff hands out carry its base path already: resolved against its origin, never given it twice', async (t) => {
  const went: string[] = []
  const sent = stubFetch(t, (url) => {
    if (url.endsWith('/auth/session')) return json(200, { authenticated: false, login_url: '/media-bff/auth/login' })
    if (url.endsWith('/api/folders/1')) return json(403, { error: 'insufficient_scope', message: 'Needs manage.', required_scopes: ['manage'], reauthorize_url: '/media-bff/auth/login?scope=basic+manage&return_to=%2F' })
    if (url.endsWith('/api/folders/2')) return json(401, { error: 'login_required', message: 'Sign in.', login_url: '/media-bff/auth/login' })
    return json(200, { status: 'ok', files: [] })
  })
  const bff = createMediaBffClient({ baseUrl: 'https://site.example', basePath: '/media-bff', navigate: (url) => { went.push(url) } })
  t.same(await bff.getSession(), { authenticated: false, login_url: 'https://site.example/media-bff/auth/login' }, 'a signed-out session\'s login_url, usable from this page')
  const scope = await caught(bff.folders.get(1))
  t.equal(scope.reauthorizeUrl, 'https://site.example/media-bff/auth/login?scope=basic+manage&return_to=%2F')
  const login = await caught(bff.folders.get(2))
  t.equal(login.loginUrl, 'https://site.example/media-bff/auth/login')
  t.equal(bff.follow(scope, { returnTo: '/x' }), true)
  t.equal(went.pop(), 'https://site.example/media-bff/auth/login?scope=basic+manage&return_to=%2Fx')
  await bff.finishUpload({ finish_url: '/media-bff/uploads/01J0000000000000000000000A/finish' })
  await bff.finishUpload({ finish_url: 'https://site.example/media-bff/uploads/01J0000000000000000000000B/finish' })
  t.same(sent.slice(-2), [
    'https://site.example/media-bff/uploads/01J0000000000000000000000A/finish',
    'https://site.example/media-bff/uploads/01J0000000000000000000000B/finish'
  ])
  for (const finishUrl of ['https://elsewhere.example/uploads/x/finish', '//elsewhere.example/uploads/x/finish', '/\\elsewhere.example/x', 'javascript:alert(1)']) {
    const refused = await caught(bff.finishUpload({ finish_url: finishUrl }))
    t.match(refused, { code: 'invalid_request', status: 0, details: { field: 'finish_url' } }, `${finishUrl}: not a link on media-bff, not sent`)
  }
  t.equal(sent.length, 5, 'nothing more was sent')
})

t.test('the module\'s own fallbacks follow the root: a sign-out it learns of, a channel that ends', async (t) => {
  for (const [options, root] of [[{}, ''], [{ basePath: '/media-bff' }, '/media-bff'], [{ baseUrl: 'https://site.example/', basePath: '//media-bff//' }, 'https://site.example/media-bff']] as const) {
    stubFetch(t, () => json(200, { logged_out: true }))
    const bff = createMediaBffClient(options)
    const watch = bff.watchSession()
    await bff.logout()
    t.same(watch.session, { authenticated: false, login_url: `${root}/auth/login` }, `signed out, never asked: ${root === '' ? 'this origin' : root}`)
    watch.stop()
  }
  const stream = new ReadableStream<Uint8Array>({
    start (controller) { controller.enqueue(new TextEncoder().encode('event: ready\ndata: {}\n\nevent: session\ndata: {"ended":true,"reason":"expired"}\n\n')) }
  })
  const sent = stubFetch(t, () => new Response(stream, { headers: { 'content-type': 'text/event-stream' } }))
  const lost = await new Promise<MediaBffError>((resolve) => {
    const channel = openLiveChannel({ root: '/media-bff', timeoutMs: 1000, onSignInLost: resolve })
    t.teardown(channel.close)
  })
  t.same(sent, ['/media-bff/events'])
  t.match(lost, { code: 'login_required', loginUrl: '/media-bff/auth/login', details: { reason: 'expired' } }, 'an ended channel\'s sign-in, under the base path')
})

t.test('a base path or address that could leave media-bff or change the path is refused before anything is sent', async (t) => {
  const sent = stubFetch(t)
  const refused = (options: Parameters<typeof createMediaBffClient>[0]): MediaBffError | undefined => {
    try {
      createMediaBffClient(options)
      return undefined
    } catch (error) {
      return error as MediaBffError
    }
  }
  for (const basePath of ['..', '/a/../b', '/a/./b', '/%2e%2e/x', '/a%2Fb', '/a\\b', '/a?b=1', '/a#b', '/a b', '/a\nb', '/a\u0000b']) {
    t.match(refused({ basePath }), { code: 'invalid_request', status: 0, details: { field: 'basePath' } }, JSON.stringify(basePath))
  }
  for (const baseUrl of ['media.example.org', '//evil.example', '/\\evil.example', 'javascript:alert(1)', 'ftp://media.example.org', 'https://user:secret@media.example.org', 'https://media.example.org/?x=1', 'https://media.example.org/#x', 'https://media.example.org/a%2fb']) {
    t.match(refused({ baseUrl }), { code: 'invalid_request', details: { field: 'baseUrl' } }, baseUrl)
  }
  t.same(sent, [])
  // Whatever a base path holds: refused, or every route stays on media-bff's origin.
  const anything = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 12 }), fc.array(fc.constantFrom('/', '\\', '.', '..', '%2e', '%2F', '?', '#', '@', ':', 'evil.example', 'a'), { maxLength: 8 }).map((parts) => parts.join('')))
  fc.assert(fc.property(fc.constantFrom('', 'https://media.example.org'), anything, fc.boolean(), (origin, path, asBaseUrl) => {
    // The path as basePath, or (on this page's origin) as a baseUrl of its own.
    const [baseUrl, basePath] = asBaseUrl && origin === '' ? [`/${path}`, ''] : [origin, path]
    const error = refused({ baseUrl, basePath })
    if (error !== undefined) return error instanceof MediaBffError && error.code === 'invalid_request'
    const login = createMediaBffClient({ baseUrl, basePath, navigate: () => {} }).loginUrl({ returnTo: '/' })
    const resolved = new URL(login, 'https://page.example/')
    return resolved.origin === (origin === '' ? 'https://page.example' : origin) && resolved.pathname.endsWith('/auth/login') &&
      (origin !== '' || (login.startsWith('/') && !login.startsWith('//')))
  }), { numRuns: 500 })
})
