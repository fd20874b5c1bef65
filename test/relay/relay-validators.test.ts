// No cached answer crosses users. The service's validators may be the same for two people (the
// emulator's are the library's version: alice's and bob's libraries, each changed once, share
// W/"v2"), and /api/folders/0/contents is one URL for everyone, so media-bff binds the ETag the
// browser sees to the signed-in user and tenant, and only ever sends up a validator that this
// user was given.
import t from 'tap'
import { startStack } from '../helpers/bff.js'
import { signIn } from '../helpers/sign-in.js'
import { defaultUserInputs } from '../../emulator/fixture-users.js'
import type { Browser } from '../helpers/http-client.js'

/** bob may manage too, so each can change their own library once. */
const users = defaultUserInputs.map((user) => user.name === 'bob' ? { ...user, scopes: ['basic', 'user.info', 'manage'] } : user)
const stack = await startStack({ emulator: { users }, env: { OAUTH_SCOPES: 'basic user.info manage' } })
t.teardown(stack.close)

async function signedIn (user: string): Promise<Browser> {
  const browser = stack.bff.browser()
  await signIn(browser, { user })
  return browser
}

async function lastContentsCall (): Promise<Record<string, string>> {
  const answer = await fetch(`${stack.emulator.apiOrigin}/__emulator/received`)
  const { requests } = await answer.json() as { requests: Array<{ path: string, headers: Record<string, string> }> }
  const call = requests.findLast((request) => request.path === '/api/folders/0/contents')
  if (call === undefined) throw new Error('the emulator received no listing')
  return call.headers
}

const names = (body: { folders: Array<{ name: string }> }): string[] => body.folders.map((folder) => folder.name)

const alice = await signedIn('alice')
const bob = await signedIn('bob')
for (const [browser, name] of [[alice, 'Alice only'], [bob, 'Bob only']] as const) {
  const created = await browser.post('/api/folders/0', { name })
  if (created.status !== 201) throw new Error(`creating ${name} answered ${created.status}: ${created.text}`)
}

t.test('the ETag is weak, bound to the user, carries no user id; Vary: Cookie; no Last-Modified', async (t) => {
  const first = await alice.get('/api/folders/0/contents')
  t.equal(first.status, 200)
  t.ok(names(first.json()).includes('Alice only'))
  const etag = String(first.headers.etag)
  t.match(etag, /^W\/"[A-Za-z0-9_-]{22}\.w/, 'weak, a binding, then the service\'s validator')
  t.notMatch(etag, /alice|Alice|"1"/, 'no user name or id in clear')
  t.match(String(first.headers.vary), /cookie/i, 'Vary: Cookie')
  t.equal(first.headers['last-modified'], undefined, 'Last-Modified stays upstream')
  const again = await alice.get('/api/folders/0/contents', { 'if-none-match': etag })
  t.equal(again.status, 304, 'alice\'s own revalidation still gets a 304 through the relay')
  t.equal(again.headers.etag, etag)
  t.match(String(again.headers.vary), /cookie/i, 'Vary: Cookie on the 304 too')
  t.equal((await lastContentsCall())['if-none-match'], 'W/"v2"', 'the service got its own validator back')
})

t.test('alice\'s ETag sent by bob is not forwarded: bob gets 200 with his own listing', async (t) => {
  const etag = String((await alice.get('/api/folders/0/contents')).headers.etag)
  const answer = await bob.get('/api/folders/0/contents', { 'if-none-match': etag })
  t.equal(answer.status, 200)
  t.ok(names(answer.json()).includes('Bob only'), 'bob\'s home folder')
  t.notOk(names(answer.json()).includes('Alice only'), 'not alice\'s')
  t.equal((await lastContentsCall())['if-none-match'], undefined, 'nothing was sent up')
  const own = String(answer.headers.etag)
  t.not(own, etag, 'bob\'s tag is his own, though the service\'s validator is the same')
  t.equal((await bob.get('/api/folders/0/contents', { 'if-none-match': own })).status, 304, 'bob\'s own tag revalidates')
  const forged = etag.replace(/^W\/"[A-Za-z0-9_-]{22}/, `W/"${'A'.repeat(22)}`)
  t.equal((await alice.get('/api/folders/0/contents', { 'if-none-match': forged })).status, 200, 'a binding that does not verify is not sent up')
})

t.test('If-Modified-Since from the browser is not forwarded', async (t) => {
  const answer = await bob.get('/api/folders/0/contents', { 'if-modified-since': new Date(Date.now() + 3_600_000).toUTCString() })
  t.equal(answer.status, 200, 'a date alice\'s cache could hold does not revalidate bob\'s listing')
  t.equal((await lastContentsCall())['if-modified-since'], undefined)
})

t.test('signing out clears the browser\'s HTTP cache, and nothing else of the site\'s', async (t) => {
  const carol = await signedIn('alice')
  const out = await carol.post('/auth/logout')
  t.equal(out.status, 200)
  t.equal(out.headers['clear-site-data'], '"cache"')
})
