// The audit events' declaration and lines (src/audit/audit-events.ts), which refusals are events
// (src/audit/refusal-events.ts), and the reference written from them.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { AUDIT_EVENTS, auditLine, auditThrottle, THROTTLED } from '../../src/audit/audit-events.js'
import { refusalEvent, unrelayedEvent } from '../../src/audit/refusal-events.js'
import { auditEventsReference } from '../../src/audit/describe.js'
import { AppError } from '../../src/errors.js'
import { GrantEndedError, RefreshUnavailableError } from '../../src/grants/grant-errors.js'
import { UpstreamError, UrlRefusedError } from '../../src/media/upstream-error.js'
import { RelayInputError } from '../../src/relay/upstream-request.js'

t.test('a line: the event, the schema, its outcome, every value bounded, nothing undefined', async (t) => {
  t.same(auditLine('sign_out', { tenant: 't', person: 'p', session: 'h', reason: undefined }), { audit: 'sign_out', audit_schema: 1, outcome: 'success', tenant: 't', person: 'p', session: 'h' })
  const long = auditLine('session_ended', { reason: 'x'.repeat(1000), sessions: Array.from({ length: 80 }, (_, i) => `h${i}`), live: 3 }, 2)
  t.equal((long.reason as string).length, 256)
  t.equal((long.sessions as string[]).length, 50)
  t.equal(long.live, 3)
  t.equal(long.suppressed, 2)
})

t.test('refusals, which anyone can cause, at most 20 a second each; the rest always', async (t) => {
  let now = 0
  const throttle = auditThrottle(() => now)
  const outcomes = Array.from({ length: 25 }, () => throttle('proof_refused'))
  t.equal(outcomes.filter((outcome) => outcome.record).length, 20)
  t.equal(throttle('scope_refused').record, true, 'each event counted on its own')
  t.ok(Array.from({ length: 50 }, () => throttle('operator_lever')).every((outcome) => outcome.record), 'an operator\'s lever is never held back')
  now = 1000
  t.same(throttle('proof_refused'), { record: true, suppressed: 5 }, 'the next second\'s first line says how many were left out')
  t.same(throttle('proof_refused'), { record: true, suppressed: 0 })
  t.same([...THROTTLED].filter((event) => AUDIT_EVENTS[event].outcome !== 'refused'), [], 'only refusals are held back')
})

t.test('which failures are events', async (t) => {
  const answer = new AppError('upstream_error', 'x')
  t.match(refusalEvent(new UrlRefusedError('upload_id', 'the upload host h is not in UPLOAD_ALLOWED_HOSTS', {}), answer), { event: 'url_refused', details: { reason: /UPLOAD_ALLOWED_HOSTS/ } })
  t.equal(refusalEvent(new UpstreamError('malformed', 'upload_id', 'not JSON'), answer), undefined, 'a service that answers nonsense is no security event')
  t.match(refusalEvent(new GrantEndedError('g'), answer), { event: 'refresh_failed', details: { reason: 'reauth_required' } })
  t.match(refusalEvent(new RefreshUnavailableError('timeout', 5), answer), { event: 'refresh_failed', details: { reason: 'unavailable' } })
  t.match(refusalEvent(new RelayInputError('folder_id', 'not a number'), answer), { event: 'relay_refused', details: { reason: 'invalid_input', field: 'folder_id' } })
  const csrf = new AppError('csrf_failed', 'x')
  t.match(refusalEvent(csrf, csrf), { event: 'proof_refused' })
  const scope = new AppError('insufficient_scope', 'x', { details: { required_scopes: ['upload', 7] } })
  t.match(refusalEvent(scope, scope), { event: 'scope_refused', details: { reason: 'insufficient_scope', scopes: ['upload'] } })
  const notFound = new AppError('not_found', 'x')
  t.equal(refusalEvent(notFound, notFound), undefined)
  t.match(unrelayedEvent('/media-bff/api/x', '/media-bff'), { event: 'relay_refused', details: { reason: 'not_relayed' } })
  t.equal(unrelayedEvent('/nothing', ''), undefined)
})

t.test('docs/reference/audit-events.md is what the declaration makes (npm run generate writes it)', async (t) => {
  t.equal(await readFile(new URL('../../docs/reference/audit-events.md', import.meta.url), 'utf8'), auditEventsReference())
  for (const event of Object.keys(AUDIT_EVENTS)) t.ok(auditEventsReference().includes(`| \`${event}\` |`), event)
})
