// Device binding's wire (src/device-binding/wire.ts, challenges.ts, bound-cookie.ts): the
// structured-field strings read back as written, for any printable text; the offer and the
// challenge as Chrome parses them; the instructions' scope under a BASE_PATH; challenges and
// short-lived cookies that hold only for what and whom they were made, until when, under any of
// the secrets.
import t from 'tap'
import fc from 'fast-check'
import { challengeHeader, readSfString, registrationHeader, sessionInstructions, sfString } from '../../src/device-binding/wire.js'
import { createChallenges } from '../../src/device-binding/challenges.js'
import { createBoundCookies } from '../../src/device-binding/bound-cookie.js'
import { createMacs } from '../../src/device-binding/macs.js'
import { parseChallenge, parseRegistration } from '../helpers/dbsc-browser.js'

const OLD = 'an-old-secret-of-at-least-32-characters!'
const NEW = 'a-new-secret-of-at-least-32-characters!!'

t.test('an sf-string reads back as written, for any printable ASCII', async (t) => {
  fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 80 }), (value) => {
    if (readSfString(sfString(value)) !== value) throw new Error(`not read back: ${value}`)
    if (readSfString(`${sfString(value)};id="x"`) !== value) throw new Error('its parameters are not ignored')
  }))
  t.throws(() => sfString('caf\u00e9'), /printable ASCII/)
  t.equal(readSfString('bare-token'), 'bare-token', 'a bare value, as some builds sent it')
  t.equal(readSfString('"unterminated'), undefined)
  t.equal(readSfString('"bad \\x escape"'), undefined)
  t.equal(readSfString('"tab\tinside"'), undefined)
  t.equal(readSfString(undefined), undefined)
  t.equal(readSfString('two words'), undefined)
})

t.test('the offer and the challenge, as Chrome parses them', async (t) => {
  t.same(parseRegistration(registrationHeader('/bff/auth/device/register', 'c.1')), { algorithms: ['ES256', 'RS256'], path: '/bff/auth/device/register', challenge: 'c.1' })
  t.same(parseChallenge(challengeHeader('c.2', 'binding-id')), { challenge: 'c.2', id: 'binding-id' })
})

t.test('the whole origin needs the cookie but sign-in and the check; the other origins\' pages renew it too', async (t) => {
  const of = { bindingId: 'b', refreshUrl: '/bff/auth/device/refresh', origin: 'https://site.example', host: 'site.example', excluded: ['/bff/auth/login', '/bff/auth/check'], cookieName: '__Host-Http-media-bff-bound', cookieAttributes: 'Path=/; Secure; HttpOnly; SameSite=Strict' }
  const instructions = sessionInstructions({ ...of, initiators: ['app.site.example'] })
  t.same((instructions.scope as { scope_specification: unknown }).scope_specification, [
    { type: 'exclude', domain: 'site.example', path: '/bff/auth/login' },
    { type: 'exclude', domain: 'site.example', path: '/bff/auth/check' }
  ])
  t.same(instructions.allowed_refresh_initiators, ['app.site.example'])
  t.notOk('allowed_refresh_initiators' in sessionInstructions({ ...of, initiators: [] }), 'none: left out')
})

t.test('a challenge holds for its purpose and subject, until it runs out, under any secret', async (t) => {
  const before = createChallenges(createMacs([OLD], 'device binding challenges'))
  const after = createChallenges(createMacs([NEW, OLD], 'device binding challenges'))
  const now = 1_800_000_000_000
  const issued = before.issue('refresh', 'binding-1', now, 60_000)
  t.match(after.check(issued, 'refresh', 'binding-1', now + 59_000), { ok: true }, 'after a rotation too')
  t.same(after.check(issued, 'refresh', 'binding-1', now + 61_000), { ok: false, why: 'expired' })
  t.same(after.check(issued, 'register', 'binding-1', now), { ok: false, why: 'forged' }, 'another purpose')
  t.same(after.check(issued, 'refresh', 'binding-2', now), { ok: false, why: 'forged' }, 'another binding')
  t.same(createChallenges(createMacs([NEW], 'device binding challenges')).check(issued, 'refresh', 'binding-1', now), { ok: false, why: 'forged' }, 'a secret dropped')
  t.same(after.check(issued.replace(/\.([0-9a-z]+)\./, (_, time: string) => `.${(parseInt(time, 36) + 999).toString(36)}.`), 'refresh', 'binding-1', now), { ok: false, why: 'forged' }, 'its time moved on')
  t.not(before.issue('refresh', 'binding-1', now, 60_000), issued, 'each is new')
})

t.test('a short-lived cookie: its binding, until its end; anything else is named', async (t) => {
  const cookies = createBoundCookies(createMacs([NEW, OLD], 'device-bound cookies'))
  const id = 'AAAAAAAAAAAAAAAAAAAAAA'
  const now = 1_800_000_000_000
  const value = cookies.make(id, now, 600_000)
  t.equal(cookies.fault(value, id, now + 599_000), undefined)
  t.equal(cookies.fault(value, id, now + 601_000), 'bound_cookie_expired')
  t.equal(cookies.fault(value, 'BBBBBBBBBBBBBBBBBBBBBB', now), 'bound_cookie_invalid', 'another binding\'s')
  t.equal(cookies.fault(undefined, id, now), 'bound_cookie_missing')
  t.equal(cookies.fault('', id, now), 'bound_cookie_missing')
  t.equal(cookies.fault(`${value}x`, id, now), 'bound_cookie_invalid')
  t.equal(createBoundCookies(createMacs([NEW], 'device binding challenges')).fault(value, id, now), 'bound_cookie_invalid', 'another purpose\'s key')
  fc.assert(fc.property(fc.string({ maxLength: 80 }), (text) => {
    if (text !== value && cookies.fault(text, id, now) === undefined) throw new Error(`taken: ${text}`)
  }))
})
