// Unit tests of src/oauth/token-errors.ts: only the authorization server refusing the grant
// ends it; a refusal of media-bff's own client and every kind of outage keep it.
import t from 'tap'
import * as oidc from 'openid-client'
import { classifyTokenError } from '../../src/oauth/token-errors.js'

const response = (status: number, headers: Record<string, string> = {}): Response => new Response('{}', { status, headers })
const bodyError = (status: number, error: string, headers?: Record<string, string>): oidc.ResponseBodyError =>
  new oidc.ResponseBodyError('refused', { cause: { error }, response: response(status, headers) })

t.test('invalid_grant (400) ends the grant', async (t) => {
  t.same(classifyTokenError(bodyError(400, 'invalid_grant')), { kind: 'rejected', error: 'invalid_grant' })
})

t.test('the client refused is the operator\'s problem: the grant is kept', async (t) => {
  for (const [status, error] of [[401, 'invalid_client'], [400, 'invalid_client'], [400, 'unauthorized_client'], [401, 'invalid_grant'], [401, 'anything']] as const) {
    const failure = classifyTokenError(bodyError(status, error))
    t.equal(failure.kind, 'client_rejected', `${status} ${error}`)
  }
  const challenge = new oidc.WWWAuthenticateChallengeError('challenge', { cause: [], response: response(401, { 'www-authenticate': 'Basic realm="x"' }) })
  t.equal(classifyTokenError(challenge).kind, 'client_rejected', 'a 401 challenge')
  t.equal(classifyTokenError(Object.assign(new Error('not an OAuth body'), { cause: response(401) })).kind, 'client_rejected', 'a bare 401, as from a WAF')
})

t.test('outages keep the grant, with a bounded Retry-After', async (t) => {
  t.same(classifyTokenError(bodyError(503, 'temporarily_unavailable', { 'retry-after': '12' })), { kind: 'transient', reason: 'token endpoint answered 503 temporarily_unavailable', retryAfterSeconds: 12 })
  t.equal((classifyTokenError(bodyError(429, 'slow_down', { 'retry-after': '100000' })) as { retryAfterSeconds: number }).retryAfterSeconds, 300, 'capped at 5 minutes')
  t.equal((classifyTokenError(bodyError(500, 'invalid_grant', { 'retry-after': 'soon' })) as { retryAfterSeconds: number }).retryAfterSeconds, 5, 'a 5xx is never a verdict on the grant; an unreadable Retry-After gives the default')
  t.equal(classifyTokenError(Object.assign(new Error('t'), { name: 'TimeoutError' })).kind, 'transient')
  t.equal(classifyTokenError(Object.assign(new Error('a'), { name: 'AbortError' })).kind, 'transient')
  t.equal(classifyTokenError(Object.assign(new Error('bad gateway'), { cause: response(502) })).kind, 'transient')
  t.equal(classifyTokenError(new TypeError('fetch failed')).kind, 'transient')
  t.equal(classifyTokenError('a string').kind, 'transient')
})
