// The browser module's access (public/client/access.ts): each scope granted, grantable or denied
// from the session and what the account may grant; asking for one before the person starts, with
// the page's state kept through the round trip, and what returned() makes of the return. The
// round trip itself, in Chromium against media-bff and the emulator: test/browser/same-origin-site.test.ts.
import t from 'tap'
import { fakeTabStorage } from '../helpers/tab-storage.js'
import { createScopeAccess, type AccessSource } from '../../public/client/access.js'
import { createMediaBffClient, type Session, type MediaUserInfo } from '../../public/client/media-bff-client.js'

/** This tab's sessionStorage, as the module reaches it (window.sessionStorage). */
const storage = fakeTabStorage()

const signedIn = (scopes: string[]): Session => ({
  authenticated: true,
  user: { id: '1', name: 'Alice', email: 'alice@example.org' },
  tenant: 'default',
  scopes,
  expires_at: '',
  idle_expires_at: '',
  absolute_expires_at: '',
  reauth_required: false
})

/** A page's view of media-bff: the session and user/info it answers, and where it was sent. */
function page (session: Session, info: MediaUserInfo | Error): { source: AccessSource, went: string[], infoCalls: () => number } {
  const went: string[] = []
  let calls = 0
  return {
    went,
    infoCalls: () => calls,
    source: {
      getSession: async () => session,
      userInfo: async () => {
        calls++
        if (info instanceof Error) throw info
        return info
      },
      loginUrl: ({ returnTo = '/here', scope } = {}) => `/auth/login?return_to=${encodeURIComponent(returnTo)}${scope === undefined ? '' : `&scope=${encodeURIComponent(scope)}`}`,
      navigate: (url) => { went.push(url) },
      inPopup: async () => ({ kind: 'closed' }),
      storageKey: 'media-bff test consent'
    }
  }
}

t.beforeEach(() => { storage.clear() })

t.test('each scope: granted by the session, grantable when the account has it, denied otherwise', async (t) => {
  const { source } = page(signedIn(['basic', 'user.info', 'upload']), { scopes: ['basic', 'user.info', 'upload', 'manage'] })
  const access = createScopeAccess(source)
  t.equal(access.of('upload'), 'denied', 'nothing before the first check')
  const report = await access.check()
  t.same(report.scopes, { basic: 'granted', 'user.info': 'granted', manage: 'grantable', upload: 'granted', share: 'denied' })
  t.equal(report.entitlementsKnown, true)
  t.equal(access.of('share'), 'denied', 'the account has no share right')
})

t.test('without user.info, or when user/info fails, a scope not granted is worth one ask', async (t) => {
  const without = page(signedIn(['basic']), { scopes: [] })
  const report = await createScopeAccess(without.source).check()
  t.same(report.scopes, { basic: 'granted', 'user.info': 'grantable', manage: 'grantable', upload: 'grantable', share: 'grantable' })
  t.equal(report.entitlementsKnown, false)
  t.equal(without.infoCalls(), 0, 'user/info is not asked without user.info')

  const failing = page(signedIn(['basic', 'user.info']), new Error('offline'))
  t.equal((await createScopeAccess(failing.source).check()).scopes.upload, 'grantable')
  const signedOut = page({ authenticated: false, login_url: '/auth/login' }, { scopes: ['upload'] })
  t.same(Object.values((await createScopeAccess(signedOut.source).check()).scopes), ['denied', 'denied', 'denied', 'denied', 'denied'], 'signed out: nothing')
})

t.test('ask: to consent for the scope, back here; returned() says it was given, with the page\'s state, once', async (t) => {
  const before = page(signedIn(['basic', 'user.info']), { scopes: ['basic', 'user.info', 'upload'] })
  const leaving = createScopeAccess(before.source)
  await leaving.check()
  leaving.ask('upload', { state: { title: 'Summer trip' } })
  t.same(before.went, ['/auth/login?return_to=%2Fhere&scope=upload'])

  // The page loads again after the consent page, the scope now granted.
  const after = page(signedIn(['basic', 'user.info', 'upload']), { scopes: ['basic', 'user.info', 'upload'] })
  const back = createScopeAccess(after.source)
  t.throws(() => back.returned(), { code: 'invalid_request', details: { field: 'returned' } }, 'returned() needs a check first')
  await back.check()
  t.same(back.returned(), { scopes: ['upload'], missing: [], granted: true, refused: false, state: { title: 'Summer trip' } })
  t.equal(back.returned(), undefined, 'once')
})

t.test('a scope not given comes back denied; one the person cancelled stays grantable', async (t) => {
  const ask = async (scopes: string): Promise<void> => {
    const leaving = createScopeAccess(page(signedIn(['basic', 'user.info']), { scopes: ['basic', 'user.info', 'upload', 'share'] }).source)
    await leaving.check()
    leaving.remember(scopes)
  }
  await ask('upload share')
  const lacking = createScopeAccess(page(signedIn(['basic', 'user.info', 'upload']), { scopes: ['basic', 'user.info', 'upload', 'share'] }).source)
  await lacking.check()
  t.match(lacking.returned(), { scopes: ['upload', 'share'], missing: ['share'], granted: false, refused: false })
  t.equal(lacking.of('share'), 'denied', 'not offered again on this page load: no loop through consent')

  await ask('upload')
  const cancelled = createScopeAccess(page(signedIn(['basic', 'user.info']), { scopes: ['basic', 'user.info', 'upload'] }).source)
  await cancelled.check()
  t.match(cancelled.returned({ code: 'access_denied' }), { missing: ['upload'], granted: false, refused: true })
  t.equal(cancelled.of('upload'), 'grantable', 'the person may change their mind')
  cancelled.deny(['upload'])
  t.equal(cancelled.of('upload'), 'denied', 'deny(): a scope_not_granted failure')
})

t.test('an ask abandoned long ago, or storage that cannot be read, comes back as none', async (t) => {
  const access = createScopeAccess(page(signedIn(['basic']), {}).source)
  await access.check()
  storage.set('media-bff test consent', JSON.stringify({ scopes: ['upload'], at: Date.now() - 2 * 3_600_000 }))
  t.equal(access.returned(), undefined, 'over an hour old')
  storage.set('media-bff test consent', '{not json')
  t.equal(access.returned(), undefined)
  storage.set('media-bff test consent', JSON.stringify({ scopes: 'upload', at: Date.now() }))
  t.equal(access.returned(), undefined, 'a shape that is not ours')
})

t.test('scopes are checked before anything navigates', async (t) => {
  const { source, went } = page(signedIn(['basic']), {})
  const access = createScopeAccess(source)
  for (const scopes of ['', ' ', 'up"load', 'a\\b', []]) {
    t.throws(() => { access.ask(scopes) }, { code: 'invalid_request', details: { field: 'scopes' } }, JSON.stringify(scopes))
  }
  t.same(went, [])
  t.equal(access.consentUrl(['upload', 'share'], { returnTo: '/library?folder=7' }), '/auth/login?return_to=%2Flibrary%3Ffolder%3D7&scope=upload%20share')
})

t.test('the client hands out one per call, keeping its asks under a key of its own media-bff', async (t) => {
  const went: string[] = []
  const client = createMediaBffClient({ basePath: '/media-bff', navigate: (url) => { went.push(url) } })
  client.access().remember('upload')
  t.same([...storage.keys()], ['media-bff https://page.invalid/media-bff consent'])
  t.equal(client.access().consentUrl('share', { returnTo: '/x' }), '/media-bff/auth/login?return_to=%2Fx&scope=share')
})
