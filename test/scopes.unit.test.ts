// Unit and property tests of src/scopes.ts: the set arithmetic of incremental consent.
import t from 'tap'
import fc from 'fast-check'
import { KNOWN_SCOPES, missingScopes, parseScopes, unionScopes } from '../src/scopes.js'

t.test('parseScopes splits on spaces and commas, drops blanks and repeats, keeps order', async (t) => {
  t.same(parseScopes('basic  user.info,upload basic'), ['basic', 'user.info', 'upload'])
  t.same(parseScopes(''), [])
  t.same(parseScopes(undefined), [])
  t.same(parseScopes(null), [])
  t.same(parseScopes(' \t,\n'), [])
})

const scopeSets = fc.array(fc.constantFrom(...KNOWN_SCOPES, 'other'), { maxLength: 8 })

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
