// src/gate/admission.ts: what a route declares becomes the one admission the gate runs, in its one
// order; a declaration that does not hold together is refused, naming the route and every problem.
import t from 'tap'
import { admissionOf, DeclarationError } from '../../src/gate/admission.js'

const LIMITS = new Set(['login', 'webhooks', 'register', 'finish', 'api', 'sessions', 'events'])

t.test('a page\'s call by default: the custom header, the session, activity', async (t) => {
  t.same(admissionOf('GET /auth/session', {}, LIMITS), {
    caller: 'page', proof: 'custom-header', operatorToken: undefined, addressLimit: undefined, personLimit: undefined, usesSession: true, scopes: undefined, isActivity: true, replacesSession: false, recentSignIn: false, vouched: true
  })
  t.match(admissionOf('GET /auth/session', { touchesSession: false }, LIMITS), { isActivity: false }, 'a route that is no activity says so')
  t.match(admissionOf('POST /uploads/register', { limit: 'register', scopes: ['upload'] }, LIMITS), { proof: 'custom-header', personLimit: 'register', addressLimit: undefined, scopes: ['upload'] }, 'a person\'s limit counted with the session, then the scopes')
})

t.test('each caller shows its own proof, and only a page or a navigation opens a session', async (t) => {
  t.match(admissionOf('GET /auth/login', { caller: 'navigation', limit: 'login' }, LIMITS), { proof: 'none', addressLimit: 'login', usesSession: true })
  t.match(admissionOf('GET /auth/callback', { caller: 'navigation', limit: 'login', replacesSession: true }, LIMITS), { replacesSession: true })
  t.match(admissionOf('POST /auth/device/refresh', { caller: 'browser', limit: 'sessions', touchesSession: false }, LIMITS), { proof: 'none', personLimit: 'sessions', usesSession: true, isActivity: false, vouched: false }, 'the browser on its own account: the session, no page\'s header, nothing asked of its binding')
  t.match(admissionOf('GET /auth/login', { caller: 'navigation' }, LIMITS), { vouched: false }, 'only a page\'s call is vouched for')
  t.match(admissionOf('POST /webhooks/media', { caller: 'server', limit: 'webhooks' }, LIMITS), { proof: 'none', addressLimit: 'webhooks', usesSession: false, isActivity: false })
  t.match(admissionOf('GET /metrics', { operators: 'metrics' }, LIMITS), { caller: 'operator', proof: 'bearer', operatorToken: 'metrics', usesSession: false })
  t.match(admissionOf('GET /healthz', { caller: 'anyone' }, LIMITS), { proof: 'none', usesSession: false })
})

t.test('a declaration that does not hold together stops the start, every problem named', async (t) => {
  const refused = (declared: Parameters<typeof admissionOf>[1]): string => {
    try {
      admissionOf('POST /x', declared, LIMITS)
    } catch (error) {
      if (error instanceof DeclarationError) return error.message
      throw error
    }
    return 'admitted'
  }
  t.match(refused({ limit: 'regsiter' as 'register' }), /^POST \/x: limit "regsiter" is no limit media-bff counts/, 'a misspelt limit')
  t.match(refused({ caller: 'server', scopes: ['upload'] }), /scopes need a page's call with a session, and this route's caller is server/)
  t.match(refused({ caller: 'anyone', limit: 'api' }), /limit "api" counts per person, and a call whose caller is anyone opens no session/)
  t.match(refused({ caller: 'operator' }), /an operators' route names its token/)
  t.match(refused({ caller: 'page', operators: 'lever' }), /an operators' route names its token/)
  t.match(refused({ caller: 'operator', operators: 'metrics', touchesSession: false }), /a call whose caller is operator has no session to touch or replace/)
  t.match(refused({ caller: 'robot' as 'page' }), /caller "robot" is none of page, navigation, browser, server, operator, proxy, anyone/)
  t.match(refused({ caller: 'page', recentSignIn: true }), /a recent sign-in is asked of a signed-in call: declare its scopes/)
  t.match(refused({ caller: 'server', scopes: [], limit: 'api' }), /limit "api" counts per person.*; scopes need/, 'all at once')
})
