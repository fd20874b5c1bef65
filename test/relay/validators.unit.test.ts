// The binding of the service's cache validators to the signed-in person (src/relay/validators.ts):
// what one viewer was given translates back for that viewer only, carries nothing of the viewer
// in clear, cannot be forged, and survives a rotation of SESSION_SECRETS.
import t from 'tap'
import fc from 'fast-check'
import { createValidatorBinding } from '../../src/relay/validators.js'

const secret = 'relay-validators-test-secret-0123456789'
const binding = createValidatorBinding([secret])
const viewer = fc.oneof(fc.constantFrom('user:default:1', 'user:default:2', 'user:north:1', 'sign-in:g-123'), fc.string({ minLength: 1 }))
const opaque = fc.stringMatching(/^[\x21\x23-\x7e]{0,40}$/)

t.test('a strong or weak ETag comes back for its viewer only, as the service sent it', async (t) => {
  fc.assert(fc.property(viewer, viewer, opaque, fc.boolean(), (mine, other, tag, weak) => {
    const upstream = `${weak ? 'W/' : ''}"${tag}"`
    const etag = binding.bind(mine, { etag: upstream })
    if (etag === undefined || !etag.startsWith('W/"')) throw new Error(`not a weak tag: ${String(etag)}`)
    // The service's own tag travels as it is, and may spell anything (the viewer too); the rest
    // must not. Six characters or more: a shorter viewer may turn up in the MAC by chance.
    if (mine.length >= 6 && etag.replace(tag, '').includes(mine)) throw new Error('the viewer is in the tag in clear')
    const back = binding.unbind(mine, etag)
    if (back?.ifNoneMatch !== upstream) throw new Error(`${etag} came back as ${JSON.stringify(back)}`)
    if (other !== mine && binding.unbind(other, etag) !== undefined) throw new Error(`${other} could use ${mine}'s tag`)
  }), { numRuns: 1000 })
})

t.test('a date travels in the tag and comes back as If-Modified-Since', async (t) => {
  const etag = binding.bind('user:default:1', { 'last-modified': 'Mon, 23 Nov 2026 10:00:00 GMT' })
  t.match(etag, /^W\/"[\w-]{22}\.d\d+"$/)
  t.same(binding.unbind('user:default:1', String(etag)), { ifModifiedSince: 'Mon, 23 Nov 2026 10:00:00 GMT' })
  t.equal(binding.unbind('user:default:2', String(etag)), undefined)
  t.equal(binding.bind('user:default:1', { 'last-modified': 'yesterday' }), undefined, 'no sane validator, no tag')
  t.equal(binding.bind('user:default:1', { etag: `"${'x'.repeat(300)}"` }), undefined, 'a tag too long')
})

t.test('forged, altered, foreign and listed tags', async (t) => {
  const etag = String(binding.bind('user:default:1', { etag: '"v2"' }))
  t.equal(binding.unbind('user:default:1', etag.replace('.ev2', '.ev3')), undefined, 'the validator altered')
  t.equal(binding.unbind('user:default:1', `W/"${'A'.repeat(22)}.ev2"`), undefined, 'a made-up binding')
  t.equal(binding.unbind('user:default:1', '"v2"'), undefined, 'the service\'s own tag, unbound')
  t.equal(binding.unbind('user:default:1', '*'), undefined)
  t.same(binding.unbind('user:default:1', `"other", ${etag}`), { ifNoneMatch: '"v2"' }, 'the bound one out of a list')
  const rotated = createValidatorBinding(['a-new-secret-0123456789-0123456789', secret])
  t.same(rotated.unbind('user:default:1', etag), { ifNoneMatch: '"v2"' }, 'still valid after a new secret is prepended')
  t.not(rotated.bind('user:default:1', { etag: '"v2"' }), etag, 'new tags are bound with the new secret')
  t.equal(createValidatorBinding(['another-deployment-secret-0123456789']).unbind('user:default:1', etag), undefined, 'another deployment\'s secret')
})

t.test('any If-None-Match a browser sends is refused quietly when it is not ours, bytes of any kind included', async (t) => {
  // 22 characters that are not 22 bytes (é), or not base64url: never compared, never a throw.
  t.equal(binding.unbind('user:default:1', `W/"${'é'.repeat(22)}.eabc"`), undefined)
  t.equal(binding.unbind('user:default:1', `W/"${'+'.repeat(22)}.eabc"`), undefined)
  fc.assert(fc.property(viewer, fc.string({ minLength: 22, maxLength: 22, unit: 'binary' }), opaque, (who, guess, tag) => {
    return binding.unbind(who, `W/"${guess}.e${tag}"`) === undefined
  }), { numRuns: 2000 })
})
