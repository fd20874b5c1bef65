// Consent in a popup, as the browser module decides it (public/client/access.ts, askInPopup; and
// the "ask, then try once more" of a call with `consent: 'popup'`, public/client/http.ts): what the
// session says afterwards decides, whatever the popup said; a refusal, a popup closed and a
// consent that came back without the scope are told apart; a blocked popup goes to the consent by
// navigation, remembering what was asked. The popup itself, in Chromium:
// test/browser/popup-consent.test.ts.
import t from 'tap'
import { fakeTabStorage } from '../helpers/tab-storage.js'
import { createScopeAccess, type AccessSource } from '../../public/client/access.js'
import type { PopupOutcome } from '../../public/client/popup.js'
import { withConsent } from '../../public/client/http.js'
import { MediaBffError, type Session } from '../../public/client/media-bff-client.js'

const storage = fakeTabStorage()

const signedIn = (scopes: string[]): Session => ({ authenticated: true, user: { id: '1', name: 'A', email: null }, tenant: 'default', scopes, expires_at: '', idle_expires_at: '', absolute_expires_at: '', reauth_required: false })

/** A page whose popup ends as `popup` says, after which the session holds `after`. */
function page (popup: PopupOutcome, after: string[]) {
  let scopes = ['basic']
  const went: string[] = []
  const asked: string[] = []
  const source: AccessSource = {
    getSession: async () => signedIn(scopes),
    userInfo: async () => { throw new Error('no user.info') },
    loginUrl: ({ scope } = {}) => `/auth/login?scope=${scope ?? ''}`,
    navigate: (url) => { went.push(url) },
    inPopup: async ({ scope }) => {
      asked.push(scope ?? '')
      if (popup.kind !== 'blocked') scopes = after
      return popup
    },
    storageKey: 'popup test'
  }
  return { access: createScopeAccess(source), went, asked }
}

t.test('granted: the session says so, and nothing navigated', async (t) => {
  const { access, went, asked } = await Promise.resolve(page({ kind: 'signed_in' }, ['basic', 'upload']))
  await access.check()
  const answer = await access.askInPopup('upload', { state: { title: 'kept' } })
  t.match(answer, { outcome: 'granted', granted: true, missing: [], scopes: ['upload'], state: { title: 'kept' } })
  t.same(asked, ['upload'])
  t.same(went, [])
  t.equal(access.of('upload'), 'granted')
})

t.test('a refusal leaves the scope grantable; a consent come back without it makes it denied', async (t) => {
  const refused = page({ kind: 'error', code: 'access_denied' }, ['basic'])
  await refused.access.check()
  t.match(await refused.access.askInPopup('share'), { outcome: 'refused', refused: true, missing: ['share'] })
  t.equal(refused.access.of('share'), 'grantable', 'the person may change their mind')
  const without = page({ kind: 'signed_in' }, ['basic'])
  await without.access.check()
  t.match(await without.access.askInPopup('share'), { outcome: 'missing', missing: ['share'] })
  t.equal(without.access.of('share'), 'denied', 'not offered again on this page')
})

t.test('an error that is not the account\'s answer: failed, and still worth asking', async (t) => {
  const failed = page({ kind: 'error', code: 'handoff_failed' }, ['basic'])
  await failed.access.check()
  t.match(await failed.access.askInPopup('upload'), { outcome: 'failed', missing: ['upload'] })
  t.equal(failed.access.of('upload'), 'grantable')
})

t.test('closed: it says so, unless the session says it was granted after all', async (t) => {
  const closed = page({ kind: 'closed' }, ['basic'])
  await closed.access.check()
  t.match(await closed.access.askInPopup('manage'), { outcome: 'closed', missing: ['manage'] })
  t.equal(closed.access.of('manage'), 'grantable')
  const quiet = page({ kind: 'closed' }, ['basic', 'manage'])
  await quiet.access.check()
  t.match(await quiet.access.askInPopup('manage'), { outcome: 'granted' }, 'a popup that could not tell (its opener taken away) still counts')
})

t.test('blocked: on to the consent by navigation, what was asked remembered; or only said', async (t) => {
  storage.clear()
  const blocked = page({ kind: 'blocked' }, ['basic'])
  await blocked.access.check()
  t.match(await blocked.access.askInPopup('upload', { state: { title: 'half typed' } }), { outcome: 'blocked' })
  t.same(blocked.went, ['/auth/login?scope=upload'])
  t.match(JSON.parse([...storage.values()][0] ?? '{}'), { scopes: ['upload'], state: { title: 'half typed' } }, 'returned() tells on the way back')
  const quiet = page({ kind: 'blocked' }, ['basic'])
  await quiet.access.check()
  t.match(await quiet.access.askInPopup('upload', { fallback: false }), { outcome: 'blocked' })
  t.same(quiet.went, [], 'fallback: false: the page only hears of it')
})

t.test('a call with consent: popup asks once and tries once more; without it, the refusal', async (t) => {
  const refusal = new MediaBffError(403, 'insufficient_scope', 'needs upload', { required_scopes: ['upload'] }, '')
  let calls = 0
  const call = async (): Promise<string> => {
    calls++
    if (calls === 1) throw refusal
    return 'done'
  }
  const asks: string[][] = []
  const settings = { root: '', timeoutMs: 1000, askConsent: async (scopes: string[]) => { asks.push(scopes); return true } }
  t.equal(await withConsent(settings, { consent: 'popup' }, call), 'done')
  t.same(asks, [['upload']])
  t.equal(calls, 2)
  calls = 0
  await t.rejects(withConsent(settings, {}, call), refusal, 'not asked for: the refusal')
  calls = 0
  await t.rejects(withConsent({ ...settings, askConsent: async () => false }, { consent: 'popup' }, call), refusal, 'not given: the refusal')
  const nameless = new MediaBffError(403, 'insufficient_scope', 'needs something', {}, '')
  await t.rejects(withConsent(settings, { consent: 'popup' }, async () => { throw nameless }), nameless, 'a refusal that names no scope: itself, nothing asked')
  t.equal(calls, 1, 'and not tried again')
  let twice = 0
  await t.rejects(withConsent(settings, { consent: 'popup' }, async () => { twice++; throw refusal }), refusal, 'refused again: the refusal')
  t.equal(twice, 2, 'tried once more only')
})
