// Unit tests of src/media/read-user-info.ts: only short plain strings and well-formed scopes are kept.
import t from 'tap'
import { readUserInfo } from '../../src/media/read-user-info.js'

t.test('the probable shape is read; ids may be numbers', async (t) => {
  t.same(readUserInfo({ user_id: 7, name: 'Alice', email: 'a@example.org', scopes: ['basic', 'upload'] }), { userId: '7', name: 'Alice', email: 'a@example.org', scopes: ['basic', 'upload'] })
  t.same(readUserInfo({ id: 'u-1', scopes: 'basic, upload share' }).scopes, ['basic', 'upload', 'share'], 'id instead of user_id; scopes as a string')
})

t.test('anything else is dropped, never passed on', async (t) => {
  t.same(readUserInfo({ user_id: { evil: true }, name: 'n'.repeat(257), email: 'a\u0000b', scopes: ['upload', 'a scope', 42] }), { userId: undefined, name: undefined, email: undefined, scopes: ['upload'] })
  t.same(readUserInfo({ scopes: ['upload', 'comment'] }).scopes, ['upload', 'comment'], 'a well-formed scope media-bff never heard of is kept: a route may come to need it')
  t.same(readUserInfo({ user_id: 2 ** 60 }).userId, undefined, 'an id past safe integers')
  for (const body of [null, 'text', [1, 2], 42]) {
    t.same(readUserInfo(body), { userId: undefined, name: undefined, email: undefined, scopes: undefined }, JSON.stringify(body))
  }
})

t.test('a name or address with a C1 control or a bidirectional override is dropped', async (t) => {
  t.same(readUserInfo({ user_id: 1, name: 'Alice\u202E', email: 'a\u0085@example.org' }), { userId: '1', name: undefined, email: undefined, scopes: undefined })
})
