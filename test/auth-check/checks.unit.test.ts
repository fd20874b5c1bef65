// The kept answer of GET /auth/check (src/auth-check/checks.ts), on a clock the test moves: checks
// that arrive together share one read, a kept answer reads nothing until AUTH_CHECK_CACHE is over
// or the session's end comes, nobody signed in is never kept, and an assertion past half its life
// is signed again.
import t from 'tap'
import { createChecks, type Reading } from '../../src/auth-check/checks.js'
import type { SignAssertion } from '../../src/auth-check/assertions.js'

const reading = (endsAt: number, scopes = ['basic', 'upload'], deniedScopes: string[] = []): Reading => ({
  subject: { userId: '1', name: 'Alice', email: 'a@example.test', tenant: 't', scopes, handle: 'h', authenticatedAt: 0 },
  deniedScopes,
  endsAt
})

function setUp (found: (sid: string) => Reading | undefined, keepMs = 5_000) {
  let now = 1_000_000
  const reads: string[] = []
  const signed: number[] = []
  let release: () => void = () => {}
  let gate: Promise<void> | undefined
  const sign: SignAssertion = async (_subject, at, notAfter) => {
    signed.push(at)
    return { jwt: `jwt-${signed.length}`, expiresAt: Math.min(at + 60_000, notAfter) }
  }
  const checks = createChecks({
    read: async (sid) => {
      reads.push(sid)
      if (gate !== undefined) await gate
      return found(sid)
    },
    sign,
    keepMs,
    now: () => now
  })
  return {
    checks,
    reads,
    signed,
    move: (ms: number) => { now += ms },
    get now () { return now },
    hold: () => { gate = new Promise((resolve) => { release = resolve }) },
    release: () => { gate = undefined; release() }
  }
}

t.test('checks that arrive together share one read; a kept answer reads nothing', async (t) => {
  const s = setUp(() => reading(Number.MAX_SAFE_INTEGER))
  s.hold()
  const together = Array.from({ length: 20 }, async () => await s.checks.check('sid', []))
  s.release()
  const answers = await Promise.all(together)
  t.equal(s.reads.length, 1, 'one read for twenty checks')
  t.ok(answers.every((answer) => answer.kind === 'signed_in'))
  s.move(4_999)
  t.equal((await s.checks.check('sid', ['upload'])).kind, 'signed_in')
  t.equal(s.reads.length, 1, 'within AUTH_CHECK_CACHE: nothing read')
  s.move(1)
  await s.checks.check('sid', [])
  t.equal(s.reads.length, 2, 'past it: read again')
})

t.test('the scopes are judged on every check, from the kept grant', async (t) => {
  const s = setUp(() => reading(Number.MAX_SAFE_INTEGER, ['basic'], ['share']))
  t.equal((await s.checks.check('sid', [])).kind, 'signed_in')
  const missing = await s.checks.check('sid', ['upload'])
  t.match(missing, { kind: 'scope_missing', verdict: { kind: 'insufficient_scope', missing: ['upload'], reauthorizeScopes: ['basic', 'upload'] } })
  t.match(await s.checks.check('sid', ['share']), { kind: 'scope_missing', verdict: { kind: 'scope_not_granted' } }, 'a scope a re-authorization came back without')
  t.equal(s.reads.length, 1)
})

t.test('nobody signed in is never kept; no cookie reads nothing', async (t) => {
  let signedIn = false
  const s = setUp(() => signedIn ? reading(Number.MAX_SAFE_INTEGER) : undefined)
  t.equal((await s.checks.check(undefined, [])).kind, 'signed_out')
  t.equal(s.reads.length, 0)
  t.equal((await s.checks.check('sid', [])).kind, 'signed_out')
  signedIn = true
  t.equal((await s.checks.check('sid', [])).kind, 'signed_in', 'a sign-in is seen at once')
  t.equal(s.reads.length, 2)
})

t.test('a kept answer holds no longer than the session', async (t) => {
  const s = setUp(() => reading(1_000_000 + 2_000))
  t.equal((await s.checks.check('sid', [])).kind, 'signed_in')
  s.move(2_001)
  t.equal((await s.checks.check('sid', [])).kind, 'signed_out', 'the session\'s end, before AUTH_CHECK_CACHE\'s')
  t.equal(s.reads.length, 2)
})

t.test('an assertion past half its life is signed again; one past the session never', async (t) => {
  const s = setUp(() => reading(Number.MAX_SAFE_INTEGER), 40_000)
  const first = await s.checks.check('sid', [])
  s.move(30_000)
  const second = await s.checks.check('sid', [])
  t.equal(first.kind === 'signed_in' && second.kind === 'signed_in' && second.assertion?.jwt, 'jwt-1', 'at half its minute: the same')
  s.move(1)
  const third = await s.checks.check('sid', [])
  t.equal(third.kind === 'signed_in' && third.assertion?.jwt, 'jwt-2', 'past half of it: a new one')
  t.equal(s.reads.length, 1, 'without reading the session again')
  const short = setUp(() => reading(1_000_000 + 10_000))
  const answer = await short.checks.check('sid', [])
  t.equal(answer.kind === 'signed_in' && answer.assertion?.expiresAt, 1_000_000 + 10_000, 'it ends with the session')
})

t.test('AUTH_CHECK_CACHE=0 reads every time; a failed read is not kept', async (t) => {
  const s = setUp(() => reading(Number.MAX_SAFE_INTEGER), 0)
  await s.checks.check('sid', [])
  await s.checks.check('sid', [])
  t.equal(s.reads.length, 2)
  t.equal(s.checks.size, 0)
  let fail = true
  const failing = createChecks({
    read: async () => { if (fail) throw new Error('store down'); return reading(Number.MAX_SAFE_INTEGER) },
    sign: undefined,
    keepMs: 5_000,
    now: () => 0
  })
  await t.rejects(failing.check('sid', []), /store down/)
  fail = false
  t.match(await failing.check('sid', []), { kind: 'signed_in', assertion: undefined }, 'the next check reads again')
})

t.test('at most maxEntries sessions are kept', async (t) => {
  const checks = createChecks({ read: async () => reading(Number.MAX_SAFE_INTEGER), sign: undefined, keepMs: 5_000, now: () => 0, maxEntries: 3 })
  for (const sid of ['a', 'b', 'c', 'd', 'e']) await checks.check(sid, [])
  t.equal(checks.size, 3)
})
