// The audit events as a deployment records them (src/audit/audit-events.ts, plugins/audit.ts),
// against the emulator: each security event once, with its fields, whatever LOG_LEVEL says; a
// flood of refusals held to 20 lines a second with the count of those left out; a file of their
// own with AUDIT_LOG; and not one token, code, cookie or secret in any of them.
import t from 'tap'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { startStack, type TestBff } from '../helpers/bff.js'
import { SecretLedger } from '../hardening/secrets.js'

const OPERATOR_TOKEN = randomBytes(32).toString('base64url')

type Line = Record<string, unknown>
const auditLines = (bff: TestBff): Line[] => bff.logs.join('').split('\n').filter((line) => line.includes('"audit":"')).map((line) => JSON.parse(line) as Line)
const of = (bff: TestBff, event: string): Line[] => auditLines(bff).filter((line) => line.audit === event)

t.test('each security event, once, with its fields', async (t) => {
  const { bff, emulator, close } = await startStack({ env: { OPERATOR_TOKEN, LOG_LEVEL: 'error', OAUTH_SCOPES: 'basic user.info upload', UPLOAD_ALLOWED_HOSTS: 'uploads.elsewhere.example' }, emulator: { clientSecret: 'emulator-client-secret-for-the-ledger' } })
  t.teardown(close)
  const ledger = new SecretLedger()
  const alice = bff.browser()
  await ledger.signIn(alice)
  const [signIn] = of(bff, 'sign_in')
  const handle = (await alice.get('/auth/sessions')).json().sessions[0].id as string
  t.match(signIn, { audit_schema: 1, outcome: 'success', tenant: 'default', person: '1', session: handle, client: '127.0.0.1', reqId: /./, msg: 'audit: sign_in' }, 'sign_in, at LOG_LEVEL=error')

  t.equal((await alice.fetch('GET', '/auth/session')).status, 403)
  t.match(of(bff, 'proof_refused'), [{ outcome: 'refused', reason: 'csrf_failed', client: '127.0.0.1' }], 'proof_refused: no X-CSRF')
  t.equal(of(bff, 'proof_refused')[0]?.session, undefined, 'refused before the session is opened: none named')

  t.equal((await alice.post('/uploads/register', { folder_id: 0 })).status, 502, 'an upload host not in UPLOAD_ALLOWED_HOSTS')
  t.match(of(bff, 'url_refused'), [{ outcome: 'refused', reason: /UPLOAD_ALLOWED_HOSTS/, person: '1', session: handle }], 'url_refused')

  t.equal((await alice.get('/api/no/such/operation')).status, 404)
  t.match(of(bff, 'relay_refused'), [{ reason: 'not_relayed', client: '127.0.0.1' }], 'relay_refused: an operation the relay does not take (no session opened for it)')

  const bob = bff.browser()
  await ledger.signIn(bob, { user: 'bob' })
  const bobHandle = (await bob.get('/auth/sessions')).json().sessions[0].id as string
  t.equal((await bob.post('/api/folders/0', { name: 'x' })).status, 403)
  t.match(of(bff, 'scope_refused'), [{ reason: /^(insufficient_scope|scope_not_granted)$/, scopes: ['manage'], person: '2', session: bobHandle }], 'scope_refused, with the missing scopes')

  const lever = await bff.browser().fetch('DELETE', '/operator/users/default/2/sessions', { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })
  t.equal(lever.status, 200)
  t.match(of(bff, 'operator_lever'), [{ outcome: 'success', tenant: 'default', person: '2', live: 1 }], 'operator_lever')
  t.match(of(bff, 'session_ended').find((line) => line.reason === 'operator'), { sessions: [bobHandle], live: 1, tenant: 'default', person: '2' }, 'session_ended, its reason the operator')

  emulator.revokeTokens('alice')
  t.equal((await alice.get('/api/folders/0/contents')).status, 401, 'the service no longer takes the grant')
  t.match(of(bff, 'refresh_failed'), [{ outcome: 'failure', reason: 'reauth_required' }], 'refresh_failed')
  t.match(of(bff, 'session_ended').find((line) => line.reason === 'grant_gone'), { sessions: [handle] }, 'and the session it ended')

  const carol = bff.browser()
  await ledger.signIn(carol)
  await carol.post('/auth/logout')
  t.match(of(bff, 'sign_out'), [{ outcome: 'success', person: '1' }], 'sign_out')
  t.ok(of(bff, 'session_ended').some((line) => line.reason === 'signed_out'), 'session_ended, signed_out')

  t.equal((await bff.browser().navigate('/auth/callback?code=made-up&state=made-up')).status, 400)
  t.match(of(bff, 'sign_in_refused'), [{ outcome: 'refused', reason: 'invalid_state' }], 'sign_in_refused')

  await ledger.addEmulator(emulator)
  ledger.add('operator token', OPERATOR_TOKEN)
  t.same(ledger.leaksIn(JSON.stringify(auditLines(bff))), [], 'no token, code, cookie or secret in any audit line')
})

t.test('a flood of refusals: at most 20 lines a second each, the next saying how many were left out', async (t) => {
  const { bff, close } = await startStack({})
  t.teardown(close)
  const browser = bff.browser()
  // Together, so they fall in one second however busy the machine is.
  await Promise.all(Array.from({ length: 30 }, async () => await browser.fetch('GET', '/auth/session')))
  const refused = of(bff, 'proof_refused')
  t.ok(refused.length <= 21 && refused.length >= 20, `${refused.length} lines for 30 refusals`)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  await browser.fetch('GET', '/auth/session')
  const last = of(bff, 'proof_refused').at(-1)
  t.equal(last?.suppressed, 30 - refused.length, 'the next line says how many were left out')
})

t.test('AUDIT_LOG: a file of their own, or off', async (t) => {
  const file = join(tmpdir(), `media-bff-audit-${randomBytes(4).toString('hex')}.log`)
  t.teardown(async () => { await rm(file, { force: true }) })
  const { bff, close } = await startStack({ env: { AUDIT_LOG: file } })
  t.teardown(close)
  await bff.browser().fetch('GET', '/auth/session')
  const lines = (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Line)
  t.match(lines, [{ audit: 'proof_refused', audit_schema: 1, pid: process.pid, hostname: /./ }], 'in the file')
  t.same(auditLines(bff), [], 'not in the log stream')

  const off = await startStack({ env: { AUDIT_LOG: 'off' } })
  t.teardown(off.close)
  await off.bff.browser().fetch('GET', '/auth/session')
  t.same(auditLines(off.bff), [], 'off: nowhere')
})
