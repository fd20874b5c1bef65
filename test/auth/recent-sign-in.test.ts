// Risky acts need a recent sign-in (RECENT_SIGN_IN, src/sign-in/recent-sign-in.ts): deleting a
// folder or a file, making a share link, ending another session. Past it they answer 403
// `reauth_required` with a URL that signs in again, asking the service for a fresh login
// (prompt=login, max_age=0), and comes back to the page; reads and other writes go on. On a clock
// the test moves on.
import t from 'tap'
import { build } from '../helpers/build.js'
import { consent, onServer } from '../helpers/sign-in.js'

const ORIGIN = 'http://127.0.0.1:3000'
const EVERYTHING = ['basic', 'user.info', 'upload', 'manage', 'share']

function testClock () {
  let time = Date.now()
  return { now: () => time, pass: (ms: number) => { time += ms } }
}

t.test('past RECENT_SIGN_IN a risky act asks for a fresh sign-in, which brings the person back', async (t) => {
  const clock = testClock()
  const stack = await build(t, { env: { RECENT_SIGN_IN: '10m', OAUTH_SCOPES: EVERYTHING.join(' ') }, emulator: { redirectUri: `${ORIGIN}/auth/callback` }, clock: clock.now })
  const browser = await stack.signedIn('alice', EVERYTHING)
  const folder = async (): Promise<number> => (await browser.post('/api/folders/0', { name: `doomed ${Math.random()}` })).json().folder_id as number
  const remove = async (id: number) => await browser.fetch('DELETE', `/api/folders/${id}`, { headers: { 'x-csrf': '1', referer: `${ORIGIN}/library?view=grid` } })

  t.equal((await remove(await folder())).status < 300, true, 'a fresh sign-in deletes')
  clock.pass(10 * 60_000 + 1)
  t.equal((await browser.get('/api/folders/0/contents')).status, 200, 'reads go on')
  const doomed = await folder()
  t.ok(doomed > 0, 'and other writes')
  const refused = await remove(doomed)
  t.equal(refused.status, 403)
  const body = refused.json()
  t.match(body, { error: 'reauth_required', reason: 'recent_sign_in', max_age: 600 })
  const again = new URL(body.login_url as string, ORIGIN)
  t.equal(again.pathname, '/auth/login')
  t.equal(again.searchParams.get('prompt'), 'login')
  t.equal(again.searchParams.get('return_to'), '/library?view=grid', 'back to the page that asked')
  t.equal((await browser.post('/api/files/0/share/link', { files: [1] })).status, 403, 'a share link too')
  t.equal((await browser.post('/auth/sessions/end-others')).status, 403, 'and ending the other sessions')
  t.equal((await browser.get('/auth/session')).json().authenticated, true, 'the session itself is fine')

  const login = await browser.navigate(`${again.pathname}${again.search}`)
  const authorize = new URL(login.location ?? '')
  t.equal(authorize.searchParams.get('prompt'), 'login', 'the service is asked for a fresh login')
  t.equal(authorize.searchParams.get('max_age'), '0')
  const callback = await browser.navigate(onServer(browser, await consent(browser, authorize.href, 'alice')))
  t.equal(callback.location, '/library?view=grid', 'signed in again, back on the page')
  t.ok((await remove(doomed)).status < 300, 'now it deletes')
})

t.test('ending another session is risky; signing this one out is not', async (t) => {
  const clock = testClock()
  const stack = await build(t, { env: { RECENT_SIGN_IN: '10m' }, clock: clock.now })
  const office = await stack.signedIn('alice')
  const phone = await stack.signedIn('alice')
  clock.pass(11 * 60_000)
  const sessions = (await office.get('/auth/sessions')).json().sessions as Array<{ id: string, current: boolean }>
  const other = sessions.find((session) => !session.current)
  const own = sessions.find((session) => session.current)
  t.match((await office.fetch('DELETE', `/auth/sessions/${other?.id ?? ''}`, { headers: { 'x-csrf': '1' } })).json(), { error: 'reauth_required', reason: 'recent_sign_in' }, 'another session')
  t.equal((await phone.get('/auth/session')).json().authenticated, true, 'which lives on')
  t.match((await office.fetch('DELETE', `/auth/sessions/${own?.id ?? ''}`, { headers: { 'x-csrf': '1' } })).json(), { ended: 1, signed_out: true }, 'its own: signed out')
})

t.test('RECENT_SIGN_IN: 1 min to 24 h', async (t) => {
  const { problemsOf, validEnv } = await import('../helpers/config-env.js')
  t.match(problemsOf({ ...validEnv, RECENT_SIGN_IN: '30s' }), [/^RECENT_SIGN_IN: must be between 60 and 86400 seconds/])
  t.same(problemsOf({ ...validEnv, RECENT_SIGN_IN: '24h' }), [])
})
