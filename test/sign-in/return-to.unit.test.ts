// Unit and property tests of src/sign-in/return-to.ts: whatever a browser sends as return_to,
// either it is refused or the Location that media-bff finally sends resolves to its own origin.
import t from 'tap'
import fc from 'fast-check'
import { normaliseReturnPath, parseReturnPath, parseReturnTarget, safeReturnPath } from '../../src/sign-in/return-to.js'

const PUBLIC_URL = 'https://bff.example'
const CALLBACK = `${PUBLIC_URL}/auth/callback`

/** Where a browser at the callback URL goes when it follows `location`. */
const resolvedOrigin = (location: string): string => new URL(location, CALLBACK).origin

t.test('local paths are kept, percent-encoded where needed', async (t) => {
  t.equal(parseReturnPath('/uploads'), '/uploads')
  t.equal(parseReturnPath('/a/b/?x=1&y=../z#frag'), '/a/b/?x=1&y=../z#frag', 'dots in the query are not path segments')
  t.equal(parseReturnPath('/galerie/été'), '/galerie/%C3%A9t%C3%A9')
  t.equal(parseReturnPath('/...'), '/...', 'three dots are a name, not a segment')
  t.equal(parseReturnPath('/a/.hidden'), '/a/.hidden')
})

t.test('dot segments are refused in every encoding', async (t) => {
  for (const value of ['/a/..//evil.example', '/..', '/.', '/a/./b', '/a/%2e%2e/b', '/a/%2E./b', '/a/.%2e/b', '/%252e%252e/b', '/a/..%2F%2Fevil', '/a;/../b', '/a/..\\evil']) {
    t.equal(parseReturnPath(value), undefined, value)
  }
})

t.test('other origins, schemes and controls are refused', async (t) => {
  for (const value of ['', 'uploads', '//evil.example', '/\\evil.example', '/%2F/evil', '/%5Cevil', 'https://evil.example', 'javascript:alert(1)', '/\tx', '/a b', '/%00', '/\u202Ex', `/${'a'.repeat(5000)}`]) {
    t.equal(parseReturnPath(value), undefined, JSON.stringify(value))
  }
})

t.test('the fallbacks give "/" for anything unsafe', async (t) => {
  t.equal(normaliseReturnPath('//evil.example'), '/')
  t.equal(safeReturnPath(undefined), '/')
  t.equal(safeReturnPath(42), '/')
  t.equal(safeReturnPath('/ok'), '/ok')
})

/** Strings built from the pieces open redirects are made of, so the generator finds them often. */
const hostilePiece = fc.constantFrom('/', '//', '\\', '.', '..', '%2e', '%2E', '%2f', '%2F', '%5c', '%25', '%252e', '%252f', '?', '#', ';', '@', ':', 'evil.example', 'a', 'é', '\t', '\u3002', '%00', '%0a', 'https:')

t.test('property: an accepted return_to always lands on the public origin', async (t) => {
  const values = fc.oneof(
    fc.array(hostilePiece, { maxLength: 12 }).map((pieces) => pieces.join('')),
    fc.array(hostilePiece, { maxLength: 12 }).map((pieces) => `/${pieces.join('')}`),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.webPath()
  )
  fc.assert(fc.property(values, (value) => {
    const location = parseReturnPath(value)
    if (location === undefined) return true
    // The callback sends the path as it is, or with auth_error added (routes/auth.ts).
    const withError = new URL(location, PUBLIC_URL)
    withError.searchParams.set('auth_error', 'access_denied')
    return location.startsWith('/') && !location.startsWith('//') &&
      resolvedOrigin(location) === PUBLIC_URL &&
      resolvedOrigin(`${withError.pathname}${withError.search}${withError.hash}`) === PUBLIC_URL &&
      parseReturnPath(location) === location
  }), { numRuns: 5000 })
  t.pass('5000 generated return_to values: each refused or landing on the public origin')
})

const SITE = 'https://www.example.org'
const SITES: ReadonlySet<string> = new Set([PUBLIC_URL, SITE, 'http://127.0.0.1:8080'])

t.test('a URL on a website origin of ALLOWED_ORIGINS may be returned to, nothing else absolute', async (t) => {
  t.equal(parseReturnTarget(`${SITE}/library?folder=3#file-7`, SITES), `${SITE}/library?folder=3#file-7`)
  t.equal(parseReturnTarget(SITE, SITES), `${SITE}/`, 'the origin alone is its root')
  t.equal(parseReturnTarget('http://127.0.0.1:8080/page', SITES), 'http://127.0.0.1:8080/page', 'a port is part of the origin')
  t.equal(parseReturnTarget('/local', SITES), '/local', 'local paths as before')
  for (const value of [
    'https://evil.example/x', 'https://www.example.org.evil/x', 'https://www.example.org@evil.example/', 'https://user@www.example.org/',
    'HTTPS://WWW.EXAMPLE.ORG/x', 'https://www.example.org:443/x', ' https://www.example.org/x', 'https:\\\\www.example.org/x',
    'https://www.example.org//evil.example', 'https://www.example.org/a/../b', 'https://www.example.org/\tx', 'http://www.example.org/x',
    'http://127.0.0.1:8081/x', 'javascript:alert(1)', `${SITE}/${'a'.repeat(1100)}`
  ]) {
    t.equal(parseReturnTarget(value, SITES), undefined, JSON.stringify(value))
  }
})

t.test('property: an accepted return target lands on one of the listed origins, whatever the string', async (t) => {
  const values = fc.oneof(
    fc.array(hostilePiece, { maxLength: 12 }).map((pieces) => `${SITE}${pieces.join('')}`),
    fc.array(hostilePiece, { maxLength: 12 }).map((pieces) => `${SITE}/${pieces.join('')}`),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.array(hostilePiece, { maxLength: 12 }).map((pieces) => pieces.join(''))
  )
  fc.assert(fc.property(values, (value) => {
    const target = parseReturnTarget(value, SITES)
    if (target === undefined) return true
    const landed = new URL(target, CALLBACK)
    landed.searchParams.set('auth_error', 'access_denied')
    return SITES.has(new URL(target, CALLBACK).origin) && SITES.has(landed.origin) && parseReturnTarget(target, SITES) === target
  }), { numRuns: 5000 })
  t.pass('5000 generated values')
})
