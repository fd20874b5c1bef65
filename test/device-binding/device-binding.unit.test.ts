// The device binding's steps (src/device-binding/device-binding.ts) as a browser and a thief meet
// them: an offer only in the first minutes after sign-in; a registration taken once, for a
// challenge of this session's, from the key the proof names; a renewal that asks for a proof
// first, takes only the registered key's, and hands out a fresh challenge (never a refusal) when
// the key signed one it cannot take; an ended binding answered so the browser drops its own.
import t from 'tap'
import { generateKeyPairSync, sign as signWith, type KeyObject } from 'node:crypto'
import { createDeviceBinding, REGISTRATION_WINDOW_MS, type Binding } from '../../src/device-binding/device-binding.js'
import { createMacs } from '../../src/device-binding/macs.js'
import { createChallenges } from '../../src/device-binding/challenges.js'

const SECRET = 'a-secret-of-at-least-thirty-two-characters'
const NOW = 1_800_000_000_000
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

function key () {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = publicKey.export({ format: 'jwk' })
  return { privateKey, jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } }
}

function proof (header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): string {
  const input = `${b64(header)}.${b64(payload)}`
  return `"${input}.${signWith('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}"`
}

function binding () {
  const taken = new Set<string>()
  return createDeviceBinding({
    secrets: [SECRET],
    cookieName: 'media-bff-bound',
    cookieLifetimeMs: 600_000,
    secureCookie: true,
    publicOrigin: 'https://site.example',
    basePath: '',
    excludedPaths: ['/auth/login'],
    refreshInitiators: [],
    takeOnce: async (nonce) => {
      if (taken.has(nonce)) return false
      taken.add(nonce)
      return true
    }
  })
}

const challengeOf = (header: string | undefined): string => /challenge="([^"]+)"/.exec(header ?? '')?.[1] ?? /^"([^"]+)"/.exec(header ?? '')?.[1] ?? ''

t.test('offered, and taken, only in the first minutes after sign-in', async (t) => {
  const device = binding()
  const session = { handle: 'h', authenticatedAt: NOW, binding: undefined }
  t.type(device.offer(session, NOW + 1000), 'string')
  t.equal(device.offer(session, NOW + REGISTRATION_WINDOW_MS + 1), undefined, 'not later')
  const browser = key()
  const jti = challengeOf(device.offer(session, NOW))
  const late = await device.register(proof({ alg: 'ES256', typ: 'dbsc+jwt', jwk: browser.jwk }, { jti }, browser.privateKey), session, NOW + REGISTRATION_WINDOW_MS + 1)
  t.same(late, { kind: 'refused', fault: 'too_late' }, 'a copy of the cookie taken later cannot bind it')
  const bound = await device.register(proof({ alg: 'ES256', typ: 'dbsc+jwt', jwk: browser.jwk }, { jti }, browser.privateKey), session, NOW + 1000)
  t.equal(bound.kind, 'bound')
  t.equal(device.offer({ ...session, binding: bound.kind === 'bound' ? bound.binding : undefined }, NOW + 2000), undefined, 'a bound session is not offered again')
  const again = await device.register(proof({ alg: 'ES256', typ: 'dbsc+jwt', jwk: browser.jwk }, { jti }, browser.privateKey), session, NOW + 1500)
  t.equal(again.kind, 'again', 'the same challenge twice: a new offer')
  const other = await device.register(proof({ alg: 'ES256', typ: 'dbsc+jwt', jwk: browser.jwk }, { jti }, browser.privateKey), { ...session, handle: 'another' }, NOW + 1500)
  t.same(other, { kind: 'refused', fault: 'challenge' }, 'another session\'s challenge')
  t.same(await device.register(undefined, session, NOW), { kind: 'refused', fault: 'malformed' })
  t.same(await device.register(proof({ alg: 'ES256', typ: 'dbsc+jwt', jwk: browser.jwk, crit: ['b64'], b64: false }, { jti }, browser.privateKey), session, NOW), { kind: 'refused', fault: 'malformed' }, 'JWS extensions are not taken')
})

t.test('a renewal: a proof first; only the registered key; a challenge it cannot take is asked again', async (t) => {
  const device = binding()
  const browser = key()
  const thief = key()
  const session = { handle: 'h', authenticatedAt: NOW, binding: undefined }
  const bound = await device.register(proof({ alg: 'ES256', typ: 'dbsc+jwt', jwk: browser.jwk }, { jti: challengeOf(device.offer(session, NOW)) }, browser.privateKey), session, NOW)
  if (bound.kind !== 'bound') throw new Error('not bound')
  const id = `"${bound.binding.id}"`
  const asked = await device.refresh(id, undefined, bound.binding, NOW + 600_000)
  t.equal(asked.kind, 'challenge', 'no proof: a challenge')
  const jti = challengeOf(asked.kind === 'challenge' ? asked.challenge : undefined)
  t.same(await device.refresh(id, proof({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti }, thief.privateKey), bound.binding, NOW + 600_000), { kind: 'refused', fault: 'signature' }, 'another key: refused')
  t.equal((await device.refresh(id, proof({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti }, browser.privateKey), bound.binding, NOW + 600_000)).kind, 'renewed', 'the key: renewed')
  t.equal((await device.refresh(id, proof({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti }, browser.privateKey), bound.binding, NOW + 600_000)).kind, 'challenge', 'the same proof again: asked for a new one')
  const dropped = createChallenges(createMacs(['a-secret-since-dropped-of-32-characters!!'], 'device binding challenges')).issue('refresh', bound.binding.id, NOW, 60_000)
  t.equal((await device.refresh(id, proof({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti: dropped }, browser.privateKey), bound.binding, NOW)).kind, 'challenge', 'a challenge under a secret since dropped: asked again, not refused')
  t.equal((await device.refresh(id, proof({ alg: 'ES256', typ: 'dbsc+jwt' }, { jti }, browser.privateKey), bound.binding, NOW + 2 * 3_600_000)).kind, 'challenge', 'one run out: asked again')
  t.same(await device.refresh('"another-binding"', undefined, bound.binding, NOW), { kind: 'end', body: { continue: false } }, 'another binding\'s id: ended')
  t.same(await device.refresh(id, undefined, undefined, NOW), { kind: 'end', body: { continue: false } }, 'no binding (the session ended): ended')
  t.same(await device.refresh(id, 'not a proof', bound.binding, NOW), { kind: 'refused', fault: 'malformed' })
})

t.test('the short-lived cookie: for its binding, and when it runs out', async (t) => {
  const device = binding()
  const fake: Binding = { id: 'AAAAAAAAAAAAAAAAAAAAAA', key: { alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: 'x'.repeat(43), y: 'y'.repeat(43) } }, boundAt: NOW }
  const browser = key()
  const session = { handle: 'h', authenticatedAt: NOW, binding: undefined }
  const bound = await device.register(proof({ alg: 'ES256', typ: 'dbsc+jwt', jwk: browser.jwk }, { jti: challengeOf(device.offer(session, NOW)) }, browser.privateKey), session, NOW)
  if (bound.kind !== 'bound') throw new Error('not bound')
  t.equal(device.fault(bound.cookie.value, bound.binding, NOW + 1000), undefined)
  t.equal(device.fault(bound.cookie.value, fake, NOW + 1000), 'bound_cookie_invalid')
  t.equal(device.expiresAt(bound.cookie.value), NOW + 600_000)
  t.equal(device.expiresAt('forged.value.here'), undefined)
  t.equal(bound.cookie.maxAgeS, 600)
  t.match(bound.instructions, { session_identifier: bound.binding.id, refresh_url: '/auth/device/refresh', credentials: [{ type: 'cookie', name: 'media-bff-bound', attributes: 'Path=/; Secure; HttpOnly; SameSite=Strict' }] })
})
