// Unit tests of src/sign-in/session-after-sign-in.ts: what a re-authorization carries over.
import t from 'tap'
import { RECORD_FORMAT } from '../../src/store/record-format.js'
import { sessionAfterSignIn, type CompletedSignInFacts } from '../../src/sign-in/session-after-sign-in.js'

const completed = (changes: Partial<CompletedSignInFacts> = {}): CompletedSignInFacts => ({
  grantId: 'new-grant',
  grantedScopes: ['basic', 'user.info'],
  user: { userId: 'u1', name: 'Alice', email: 'a@example.org', scopes: ['basic', 'user.info', 'upload'] },
  deniedScopes: [],
  ...changes
})
const previous = { userId: 'u1', tenant: 'north', deniedScopes: ['share'], uploadOwner: 'old-owner' }
const NOW = 1_700_000_000_000

t.test('a first sign-in starts clean', async (t) => {
  t.same(sessionAfterSignIn({}, completed(), { tenant: 'north', addedScopes: [] }, NOW), {
    format: RECORD_FORMAT,
    grantId: 'new-grant',
    tenant: 'north',
    user: { id: 'u1', name: 'Alice', email: 'a@example.org' },
    entitlements: ['basic', 'user.info', 'upload'],
    deniedScopes: [],
    uploadOwner: 'new-grant',
    authenticatedAt: NOW,
    lastSeen: NOW
  })
})

t.test('the same user re-authorizing keeps the upload owner and, while asking for more, the denials', async (t) => {
  const session = sessionAfterSignIn(previous, completed({ deniedScopes: ['manage'] }), { tenant: 'north', addedScopes: ['manage'] }, NOW)
  t.equal(session.uploadOwner, 'old-owner')
  t.same(session.deniedScopes, ['share', 'manage'])
})

t.test('a plain sign-in of the same user forgets earlier denials but keeps the uploads', async (t) => {
  const session = sessionAfterSignIn(previous, completed(), { tenant: 'north', addedScopes: [] }, NOW)
  t.same(session.deniedScopes, [])
  t.equal(session.uploadOwner, 'old-owner')
})

t.test('a scope granted now is no longer denied', async (t) => {
  const session = sessionAfterSignIn(previous, completed({ grantedScopes: ['basic', 'share'] }), { tenant: 'north', addedScopes: ['share'] }, NOW)
  t.same(session.deniedScopes, [])
})

t.test('another user, another tenant, or an unknown user carries nothing', async (t) => {
  for (const [name, before, tenant, userId] of [
    ['another user', previous, 'north', 'u2'],
    ['another tenant', previous, 'south', 'u1'],
    ['no user id on either side', { ...previous, userId: undefined }, 'north', undefined]
  ] as const) {
    const session = sessionAfterSignIn(before, completed({ user: { userId, name: undefined, email: undefined, scopes: undefined } }), { tenant, addedScopes: ['manage'] }, NOW)
    t.equal(session.uploadOwner, 'new-grant', `${name}: own uploads`)
    t.same(session.deniedScopes, [], `${name}: no denials`)
    t.same(session.user, { id: userId, name: undefined, email: undefined }, `${name}: no profile`)
  }
})

t.test('the same user whose user/info failed this time keeps the profile already known', async (t) => {
  const before = { ...previous, name: 'Alice', email: 'alice@example.test', entitlements: ['basic', 'manage'] }
  const blank = sessionAfterSignIn(before, completed({ user: { userId: 'u1', name: undefined, email: undefined, scopes: undefined } }), { tenant: 'north', addedScopes: ['manage'] }, NOW)
  t.same(blank.user, { id: 'u1', name: 'Alice', email: 'alice@example.test' })
  t.same(blank.entitlements, ['basic', 'manage'])
  const fresh = sessionAfterSignIn(before, completed({ user: { userId: 'u1', name: 'Alice B.', email: 'ab@example.test', scopes: ['basic'] } }), { tenant: 'north', addedScopes: [] }, NOW)
  t.same(fresh.user, { id: 'u1', name: 'Alice B.', email: 'ab@example.test' }, 'a fresh user/info wins')
  t.same(fresh.entitlements, ['basic'])
})
