// Unit tests of src/oauth/scope-check.ts: ask for a missing scope once, then stop asking.
import t from 'tap'
import fc from 'fast-check'
import { checkScopes } from '../../src/oauth/scope-check.js'
const SERVICE_SCOPES = ['basic', 'user.info', 'manage', 'upload', 'share']

t.test('granted: ok; missing: ask, with the union of granted and required', async (t) => {
  t.same(checkScopes(['basic', 'upload'], ['upload']), { ok: true })
  t.same(checkScopes(['basic'], ['upload', 'basic']), { ok: false, kind: 'insufficient_scope', missing: ['upload'], reauthorizeScopes: ['basic', 'upload'] })
})

t.test('missing and already refused: scope_not_granted, no loop', async (t) => {
  t.same(checkScopes(['basic'], ['upload'], ['upload']), { ok: false, kind: 'scope_not_granted', missing: ['upload'] })
  t.match(checkScopes(['basic'], ['upload', 'share'], ['upload']), { ok: false, kind: 'insufficient_scope' }, 'one of them may still be granted')
})

t.test('property: the verdict is ok exactly when nothing required is missing; a re-authorization always asks for everything required', async (t) => {
  const scopes = fc.uniqueArray(fc.constantFrom(...SERVICE_SCOPES), { maxLength: 5 })
  fc.assert(fc.property(scopes, scopes, scopes, (granted, required, denied) => {
    const verdict = checkScopes(granted, required, denied)
    const allGranted = required.every((scope) => granted.includes(scope))
    if (verdict.ok) return allGranted
    if (verdict.kind === 'insufficient_scope') return !allGranted && required.every((scope) => verdict.reauthorizeScopes.includes(scope)) && granted.every((scope) => verdict.reauthorizeScopes.includes(scope))
    return !allGranted && verdict.missing.every((scope) => denied.includes(scope))
  }), { numRuns: 2000 })
  t.pass('2000 generated cases')
})
