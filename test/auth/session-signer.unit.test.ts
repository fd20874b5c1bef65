// plugins/session-signer.ts: what it answers is exactly what @fastify/cookie's Signer answers;
// what it remembers is valid cookies alone, so fresh ids and forged cookies never push out the
// signed-in sessions' verifications.
import t from 'tap'
import fc from 'fast-check'
import { Signer, type UnsignResult } from '@fastify/cookie'
import { rememberingSigner, type CookieSigner } from '../../plugins/session-signer.js'

const SECRET = 'a-session-secret-of-at-least-32-characters'
const OLD_SECRET = 'an-older-session-secret-of-32-characters!'

/** A Signer that counts the HMACs it computes. */
function counted (secrets: string[]): CookieSigner & { hmacs: () => number } {
  const signer = new Signer(secrets, 'sha256')
  let hmacs = 0
  return {
    sign: (value) => { hmacs++; return signer.sign(value) },
    unsign: (input): UnsignResult => { hmacs++; return signer.unsign(input) },
    hmacs: () => hmacs
  }
}

t.test('answers as the Signer does, for any id, cookie or forgery, under rotation too', async (t) => {
  const reference = new Signer([SECRET, OLD_SECRET], 'sha256')
  const old = new Signer([OLD_SECRET], 'sha256')
  const remembering = rememberingSigner(new Signer([SECRET, OLD_SECRET], 'sha256'), 8)
  fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('current', 'old', 'forged'), (id, how) => {
    const cookie = how === 'current' ? reference.sign(id) : how === 'old' ? old.sign(id) : `${id}.${'A'.repeat(43)}`
    // Twice: the second answer may come from memory and must be the same.
    for (let i = 0; i < 2; i++) {
      if (JSON.stringify(remembering.unsign(cookie)) !== JSON.stringify(reference.unsign(cookie))) return false
      if (remembering.sign(id) !== reference.sign(id)) return false
    }
    return true
  }), { numRuns: 500 })
})

t.test('a signed-in cookie is verified once and its signature known from then on', async (t) => {
  const signer = counted([SECRET])
  const remembering = rememberingSigner(signer, 4)
  const cookie = new Signer([SECRET], 'sha256').sign('session-1')
  remembering.unsign(cookie)
  const afterFirst = signer.hmacs()
  for (let i = 0; i < 10; i++) {
    t.same(remembering.unsign(cookie), { valid: true, renew: false, value: 'session-1' })
    t.equal(remembering.sign('session-1'), cookie)
  }
  t.equal(signer.hmacs(), afterFirst, 'no HMAC for a cookie verified before')

  // A flood of fresh ids (requests without a cookie) and forged cookies: none is remembered.
  for (let i = 0; i < 100; i++) {
    remembering.sign(`fresh-${i}`)
    remembering.unsign(`forged-${i}.${'B'.repeat(43)}`)
  }
  const beforeAgain = signer.hmacs()
  remembering.unsign(cookie)
  remembering.sign('session-1')
  t.equal(signer.hmacs(), beforeAgain, 'the signed-in cookie is still remembered')

  // Only other valid cookies push it out, oldest first.
  for (let i = 0; i < 4; i++) remembering.unsign(new Signer([SECRET], 'sha256').sign(`other-${i}`))
  const beforeForgotten = signer.hmacs()
  remembering.unsign(cookie)
  t.equal(signer.hmacs(), beforeForgotten + 1, 'verified again once forgotten')
})

t.test('a cookie signed with an older secret is remembered with its re-signed form', async (t) => {
  const remembering = rememberingSigner(new Signer([SECRET, OLD_SECRET], 'sha256'))
  const oldCookie = new Signer([OLD_SECRET], 'sha256').sign('session-2')
  t.same(remembering.unsign(oldCookie), { valid: true, renew: true, value: 'session-2' })
  t.equal(remembering.sign('session-2'), new Signer([SECRET], 'sha256').sign('session-2'), 'signed with the first secret')
})
