// What a request does to the session it arrives with (src/sessions/arrival.ts).
import t from 'tap'
import { arrivalOf, MAX_TOUCH_INTERVAL_MS } from '../../src/sessions/arrival.js'
import { signedInOf } from '../../src/sessions/signed-in.js'

const timeouts = { idleTimeoutMs: 30 * 60_000, absoluteTimeoutMs: 8 * 3600_000 }
const signedAt = 1_000_000
const session = (lastSeen: number) => {
  const signedIn = signedInOf('sid', { grantId: 'g', tenant: 't', handle: 'h', authenticatedAt: signedAt, lastSeen }, timeouts)
  if (signedIn === undefined) throw new Error('not signed in')
  return signedIn
}
const arriving = { idleTimeoutMs: timeouts.idleTimeoutMs, isActivity: true, replacesSession: false, cookieToRenew: false }

t.test('past a deadline: ended, or replaced by the route that begins one', async (t) => {
  const now = signedAt + timeouts.idleTimeoutMs + 1
  t.equal(arrivalOf(session(signedAt), { ...arriving, now }), 'end')
  t.equal(arrivalOf(session(signedAt), { ...arriving, now, replacesSession: true }), 'replace')
  t.equal(arrivalOf(session(now - 1000), { ...arriving, now: signedAt + timeouts.absoluteTimeoutMs + 1 }), 'end', 'the absolute timeout, however active')
})

t.test('activity touches at most once per interval; a read that is not activity never does', async (t) => {
  const lastSeen = signedAt + 60_000
  t.equal(arrivalOf(session(lastSeen), { ...arriving, now: lastSeen + MAX_TOUCH_INTERVAL_MS }), 'use', 'within the interval')
  t.equal(arrivalOf(session(lastSeen), { ...arriving, now: lastSeen + MAX_TOUCH_INTERVAL_MS + 1 }), 'touch', 'past it')
  t.equal(arrivalOf(session(lastSeen), { ...arriving, now: lastSeen + MAX_TOUCH_INTERVAL_MS + 1, isActivity: false }), 'use', 'GET /auth/session')
  t.equal(arrivalOf(session(lastSeen), { ...arriving, now: lastSeen + 1, isActivity: false, cookieToRenew: true }), 'touch', 'a cookie to send again')
})

t.test('a short idle timeout touches every quarter of it', async (t) => {
  const idleTimeoutMs = 60_000
  const lastSeen = signedAt + 1000
  t.equal(arrivalOf(session(lastSeen), { ...arriving, idleTimeoutMs, now: lastSeen + 15_001 }), 'touch')
  t.equal(arrivalOf(session(lastSeen), { ...arriving, idleTimeoutMs, now: lastSeen + 14_999 }), 'use')
})
