// What adding a relayed operation takes: one row in src/relay/operations.ts. Here the table is
// given one more row (tap's mockImport: the rest of media-bff as it is), and the operation is
// then served at /api/<path> with everything the other operations have: its scope checked, its
// id and query validated, the user's token attached, the service's answer relayed, and its place
// in the API description. (The emulator has no such operation: the service's 404 comes back, with
// the operation's name, which is enough to see the call made.)
import t from 'tap'
import { RELAY_OPERATIONS, type RelayOperation } from '../../src/relay/operations.js'
import { buildApp } from '../../src/app.js'
import { build } from '../helpers/build.js'
import { loadedExtension } from '../helpers/loaded-as.js'
import { signIn } from '../helpers/sign-in.js'

const playlist: RelayOperation = {
  name: 'playlist',
  operationId: 'getPlaylist',
  method: 'GET',
  path: 'playlists/:playlist_id',
  scope: 'share',
  summary: 'A playlist',
  query: { shuffled: { kind: 'flag', description: 'In shuffled order' } },
  body: {}
}

t.test('one row in the table: a new operation with its scope, validation, token and docs', async (t) => {
  const { buildApp } = await t.mockImport<typeof import('../../src/app.js')>('../../src/app.js', {
    [`../../src/relay/operations${loadedExtension}`]: { ...await import('../../src/relay/operations.js'), RELAY_OPERATIONS: [...RELAY_OPERATIONS, playlist] }
  })
  const stack = await build(t, { buildApp, env: { OAUTH_SCOPES: 'basic user.info upload share' } })
  const alice = await stack.signedIn('alice', ['basic', 'user.info', 'upload', 'share'])

  stack.emulator.clearReceivedRequests()
  const answer = await alice.get('/api/playlists/12?shuffled=true')
  t.match(answer.json(), { error: 'not_found', upstream: { endpoint: 'playlist', status: 404 } }, 'relayed: the service\'s 404, named by its operation')
  const sent = stack.emulator.receivedRequests().find((request) => request.path.startsWith('/api/playlists/'))
  t.equal(sent?.path, '/api/playlists/12?shuffled=1', 'the call reached the service as the row allows (the flag as the service reads flags)')
  t.match(sent?.headers.authorization, /^Bearer /, 'with the user\'s token')

  stack.emulator.clearReceivedRequests()
  const notAnId = await alice.get('/api/playlists/twelve')
  t.equal(notAnId.status, 404)
  t.notOk(Object.hasOwn(notAnId.json(), 'upstream'), 'an id that is not one: no such path here, and the service is never asked')
  t.same(stack.emulator.receivedRequests(), [])
  t.match((await alice.get('/api/playlists/12?order=random')).json(), { error: 'invalid_request' }, 'and the query: only what the row allows')

  const withoutShare = await stack.signedIn('alice', ['basic', 'user.info', 'upload'])
  const refused = await withoutShare.get('/api/playlists/12')
  t.equal(refused.status, 403)
  t.match(refused.json(), { error: 'insufficient_scope' }, 'its scope is required')

  const docs = await stack.inject({ method: 'GET', url: '/docs' })
  t.equal(docs.json().paths['/api/playlists/{playlist_id}']?.get?.operationId, 'getPlaylist', 'in the API description, by its name')
})

t.test('a route with a scope of its own, in no table: its reauthorize_url is one /auth/login takes', async (t) => {
  // A route as a newcomer would add one, beside the others: its scope declared on it, nowhere else.
  const withArchive: typeof buildApp = async (...args) => {
    const app = await buildApp(...args)
    app.get('/archive', { config: { scopes: ['archive'] } }, async () => ({ ok: true }))
    return app
  }
  const stack = await build(t, { buildApp: withArchive })
  const alice = await stack.signedIn('alice')
  const refused = await alice.get('/archive')
  t.equal(refused.status, 403, 'the route\'s scope is checked')
  const reauthorize = String(refused.json().reauthorize_url)
  t.match(reauthorize, /[?&]scope=[^&]*archive/, 'the link asks for it')
  const login = await alice.navigate(reauthorize)
  t.equal(login.status, 302, 'and /auth/login takes it: the scopes a sign-in may ask for are the routes\'')
  t.match(new URL(login.location ?? '').searchParams.get('scope'), /\barchive\b/, 'on to the authorization server')
  t.equal((await alice.navigate('/auth/login?scope=unheard-of')).status, 400, 'a scope no route declares and OAUTH_SCOPES lacks is still refused')
})

t.test('a route with a scope no other route has, and media-bff never heard of: followed through consent, the grant holds it and the route answers', async (t) => {
  // A later version of the service offers `comment`; alice may grant it. Nothing in media-bff
  // lists it: only the route below declares it.
  const withComments: typeof buildApp = async (...args) => {
    const app = await buildApp(...args)
    app.get('/comments', { config: { scopes: ['comment'] } }, async () => ({ ok: true }))
    return app
  }
  const stack = await build(t, {
    buildApp: withComments,
    emulator: { redirectUri: 'http://127.0.0.1:3000/auth/callback', laterScopes: { comment: 'comment on your files' }, users: [{ name: 'alice', scopes: ['basic', 'user.info', 'manage', 'upload', 'share', 'comment'] }] }
  })
  const alice = await stack.signedIn('alice')
  const refused = await alice.get('/comments')
  t.equal(refused.json().error, 'insufficient_scope', 'not granted yet: asked for')
  const { callback } = await signIn(alice, { loginPath: String(refused.json().reauthorize_url) })
  t.equal(callback.status, 302, 'the consent given, the sign-in completes')
  t.same((await alice.get('/comments')).json(), { ok: true }, 'the grant holds the scope, and the route answers')
  t.ok((await alice.get('/auth/session')).json().scopes.includes('comment'), 'the session says so')
})
