// Unit and property tests of src/scopes.ts: the set arithmetic of incremental consent.
import t from 'tap'
import fc from 'fast-check'
import { isScopeToken, MAX_SCOPES, missingScopes, parseScopes, scopesFrom, unionScopes } from '../src/scopes.js'

t.test('parseScopes splits on spaces and commas, drops blanks and repeats, keeps order', async (t) => {
  t.same(parseScopes('basic  user.info,upload basic'), ['basic', 'user.info', 'upload'])
  t.same(parseScopes(''), [])
  t.same(parseScopes(undefined), [])
  t.same(parseScopes(null), [])
  t.same(parseScopes(' \t,\n'), [])
})

const scopeSets = fc.array(fc.constantFrom<string>('basic', 'user.info', 'manage', 'upload', 'share', 'other'), { maxLength: 8 })

t.test('property: a union holds every scope of its parts once, and nothing is missing from it', async (t) => {
  fc.assert(fc.property(scopeSets, scopeSets, scopeSets, (a, b, c) => {
    const union = unionScopes(a, b, c)
    return new Set(union).size === union.length &&
      [...a, ...b, ...c].every((scope) => union.includes(scope)) &&
      union.every((scope) => [...a, ...b, ...c].includes(scope)) &&
      missingScopes(union, [...a, ...b]).length === 0
  }), { numRuns: 2000 })
  t.pass('2000 generated scope sets')
})

t.test('property: missingScopes is exactly what was required and not granted', async (t) => {
  fc.assert(fc.property(scopeSets, scopeSets, (granted, required) => {
    const missing = missingScopes(granted, required)
    return missing.every((scope) => required.includes(scope) && !granted.includes(scope)) &&
      required.every((scope) => granted.includes(scope) || missing.includes(scope))
  }), { numRuns: 2000 })
  t.pass('2000 generated pairs')
})

t.test('property: parseScopes of a joined list gives the list back (deduplicated)', async (t) => {
  fc.assert(fc.property(scopeSets, fc.constantFrom(' ', ',', ' , ', '\t'), (scopes, separator) => {
    return JSON.stringify(parseScopes(scopes.join(separator))) === JSON.stringify([...new Set(scopes)])
  }), { numRuns: 1000 })
  t.pass('1000 generated lists')
})

t.test('what the service says is kept by form, never by name: a scope this version never heard of is kept', async (t) => {
  t.same(scopesFrom(['basic', 'comment.write', 'x:y/z', 'basic']), ['basic', 'comment.write', 'x:y/z'], 'any well-formed scope, once')
  t.same(scopesFrom(['', 'a b', 'quo"te', 'back\\slash', 'é', 'x'.repeat(65), 42, null, { scope: 'x' }]), [], 'never one that is not a scope token (RFC 6749 §3.3)')
  t.equal(scopesFrom(Array.from({ length: 100 }, (_, i) => `s${i}`)).length, MAX_SCOPES, 'and at most a few')
})

t.test('property: a scope token is printable ASCII but space, quote and backslash, 1 to 64 characters', async (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 80 }), (text) => {
    const expected = text.length >= 1 && text.length <= 64 && [...text].every((c) => c >= '!' && c <= '~' && c !== '"' && c !== '\\')
    return isScopeToken(text) === expected
  }), { seed: 20261128, numRuns: 2000 })
})
