// What the site's own servers are told of who is signed in (docs/guide/own-server.md): GET
// /auth/check answers a reverse proxy's sub-request (nginx auth_request, Envoy Gateway's extAuth,
// Traefik's ForwardAuth) with the person's identity and a signed assertion, and GET
// /.well-known/jwks.json serves the keys that verify it. Thin: the answer is worked out in
// src/auth-check/.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { AppError, loginUrl } from '../src/errors.js'
import { parseScopes } from '../src/scopes.js'
import { scopeRefusal } from '../src/oauth/scope-check.js'
import { assertionSigner } from '../src/auth-check/assertions.js'
import { jwksOf, makeAssertionKey } from '../src/auth-check/assertion-keys.js'
import { createChecks } from '../src/auth-check/checks.js'
import { identityHeaders, LOGIN_HEADER } from '../src/auth-check/identity-headers.js'
import { forwardedOriginal, returnTargetOf, type Original } from '../src/auth-check/original-request.js'
import { trustedPeer } from '../src/trusted-peer.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Binding } from '../src/device-binding/device-binding.js'
import type { BoundCookieFault } from '../src/device-binding/bound-cookie.js'
import { empty, header, json, redirect, refusals } from './responses.js'
import { SESSION_IF_ANY } from './schemas.js'
import { ErrorBody, JwkSet } from '../src/contract/index.js'

const CheckQuery = Type.Object({
  scope: Type.Optional(Type.String({ maxLength: 256, description: 'Space-separated scopes the person must hold for the page asked about' })),
  redirect: Type.Optional(Type.Literal('1', { description: 'A refusal of a page\'s GET answers 302 to the sign-in (or consent) instead: for a proxy that passes the refusal to the browser as it is (Traefik\'s ForwardAuth)' }))
})

/** The browser's session: the check answers who it is, and 401 without one. */
const SESSION = [{ sessionCookie: [] }]
const IDENTITY = (description: string): ReturnType<typeof header> => header(Type.String({ description }), true)
const LOGIN = header(Type.String({ format: 'uri', description: 'Where the proxy\'s error page sends the browser: the sign-in (401) or the consent (403), bringing the person back to the page asked about when a proxy of TRUST_PROXY named it' }))
const SIGNED_IN = empty('Signed in, with the scopes asked for: who, as headers for the site\'s server (each always sent, empty when there is nothing to say), and the signed assertion', {
  'X-Auth-Request-User': IDENTITY('The person\'s id at the media service (empty when it never said); percent-encoded unless plain ASCII'),
  'X-Auth-Request-Email': IDENTITY('Their e-mail (empty when the service never said)'),
  'X-Auth-Request-Tenant': IDENTITY('The tenant they signed in to'),
  'X-Auth-Request-Scopes': IDENTITY('The scopes their grant holds, space-separated'),
  'X-Media-Bff-Assertion': IDENTITY('A JWT (ES256 or EdDSA, GET /.well-known/jwks.json) of at most ASSERTION_LIFETIME: iss, aud, sub, tenant, scope, auth_time, sid; empty with ASSERTION_KEYS=none'),
  'Cache-Control': header(Type.String({ const: 'no-store', description: 'Never kept by a cache on the way' }), true)
})

/** The JWK Set changes only with a restart (ASSERTION_KEYS): verifiers may keep it a while. */
const JWKS_MAX_AGE_S = 300

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app
  const assertions = config.keysMadeAtStart ? { ...config.assertions, keys: [makeAssertionKey(`made-at-start-${Date.now().toString(36)}`)] } : config.assertions
  const checks = createChecks({
    read: async (sid) => {
      const found = await app.sessions.look(sid)
      if (found === undefined || !config.tenants.has(found.grant.grant.tenant)) return undefined
      const { signedIn, grant: { grant } } = found
      return {
        subject: { userId: signedIn.user.id, name: signedIn.user.name, email: signedIn.user.email, tenant: grant.tenant, scopes: grant.scopes, handle: signedIn.handle, authenticatedAt: signedIn.authenticatedAt },
        deniedScopes: signedIn.deniedScopes,
        endsAt: signedIn.endsAt,
        // Off, a binding made while it was on is not asked for (as for a page's call).
        binding: app.deviceBinding === undefined ? undefined : signedIn.binding
      }
    },
    sign: assertionSigner(assertions),
    keepMs: config.checkKeepMs,
    now: app.clock
  })
  const fromTrustedProxy = trustedPeer(config.trustProxy)
  const site = { publicOrigin: config.publicOrigin, siteOrigins: new Set([config.publicOrigin, ...config.allowedOrigins]) }
  const signInUrl = `${config.publicOrigin}${loginUrl(config.basePath)}`
  const jwks = JSON.stringify(jwksOf(assertions.keys))
  // The check's cookie is the browser's, as the proxy passed it on: a bound session's short-lived
  // cookie among it (src/device-binding/).
  const { deviceBinding } = app
  const faultOf = (request: FastifyRequest, binding: Binding | undefined): BoundCookieFault | undefined => {
    if (deviceBinding === undefined || binding === undefined) return undefined
    const header = request.headers.cookie
    return deviceBinding.fault(header === undefined ? undefined : app.parseCookie(header)[deviceBinding.cookieName], binding, app.clock())
  }
  const shows = (request: FastifyRequest, binding: Binding): boolean => faultOf(request, binding) === undefined

  /**
   * The check's answer. `original`: the page asked about; `navigation`: the refusal goes to the
   * browser as it is (Envoy's ext_authz and Traefik's ForwardAuth pass it on), so a page's GET
   * is sent on to sign in.
   */
  const answer = async (request: FastifyRequest, reply: FastifyReply, required: readonly string[], original: Original, navigation: boolean): Promise<FastifyReply> => {
    const unknown = required.filter((scope) => !app.requestableScopes.has(scope))
    if (unknown.length > 0) {
      throw new AppError('invalid_request', `This site does not ask for the scope ${unknown.join(', ')}.`, { details: { field: 'scope', known_scopes: [...app.requestableScopes] } })
    }
    const trustedPeer = fromTrustedProxy(request.socket.remoteAddress)
    const askedMethod = ((trustedPeer ? original.method : undefined) ?? request.method).toUpperCase()
    // A write another site's page started (a form posted to the site's server) is never signed
    // in: with FRAME_ANCESTORS the session cookie goes with it (SameSite=None), and the site's
    // server would otherwise act on it for the person. Browsers say so in Sec-Fetch-Site.
    const crossSiteWrite = request.headers['sec-fetch-site'] === 'cross-site' && askedMethod !== 'GET' && askedMethod !== 'HEAD'
    if (crossSiteWrite) app.audit('proof_refused', { reason: 'cross_site_write' }, request)
    const checked = crossSiteWrite ? { kind: 'signed_out' } as const : await checks.check(app.sessions.sidAsked(request), required, (binding) => shows(request, binding))
    if (checked.kind === 'unbound') {
      const { subject } = checked.reading
      app.audit('device_binding_refused', { tenant: subject.tenant, person: subject.userId, session: subject.handle, reason: faultOf(request, checked.reading.binding) }, request)
    }
    reply.header('cache-control', 'no-store')
    // 200 and no body: Envoy's ext_authz takes no other status as a yes (nginx and Traefik take any 2xx).
    if (checked.kind === 'signed_in') return await reply.code(200).headers(identityHeaders(checked.subject, checked.assertion)).send()
    const trusted = fromTrustedProxy(request.socket.remoteAddress)
    const returnTo = returnTargetOf(trusted ? original : undefined, request.protocol, site)
    const signIn = (scopes?: readonly string[]): string => `${signInUrl}?${new URLSearchParams({ ...(scopes === undefined ? {} : { scope: scopes.join(' ') }), return_to: returnTo }).toString()}`
    const where = checked.kind === 'signed_out' || checked.kind === 'unbound' ? signIn() : checked.verdict.kind === 'insufficient_scope' ? signIn(checked.verdict.reauthorizeScopes) : undefined
    const method = (trusted ? original.method?.toUpperCase() : undefined) ?? request.method
    if (where !== undefined && navigation && (method === 'GET' || method === 'HEAD')) return await reply.redirect(where, 302)
    if (where !== undefined) reply.header(LOGIN_HEADER, where)
    if (checked.kind === 'signed_out' || checked.kind === 'unbound') throw new AppError('login_required', 'Please sign in.', { details: { login_url: signIn() } })
    throw scopeRefusal(checked.verdict, signIn)
  }

  app.get('/auth/check', {
    schema: {
      tags: ['auth'],
      operationId: 'checkSignedIn',
      summary: 'Who is signed in, for a reverse proxy\'s sub-request (nginx auth_request, Traefik ForwardAuth); never a token, never the cookie',
      security: SESSION,
      querystring: CheckQuery,
      response: {
        200: SIGNED_IN,
        302: redirect('With `redirect=1`, a page\'s GET signed out, or without a scope the person may give: on to the sign-in (or the consent), and back to the page', 'The sign-in (or consent) URL'),
        ...refusals({ validated: ['the query'], own: { 400: ['`invalid_request`: `scope` names a scope this site does not ask for (`known_scopes` lists those)'] } }),
        401: json(ErrorBody, '`login_required` (with `login_url`): nobody is signed in with this browser\'s cookie, or their session or grant has ended', { 'X-Media-Bff-Login': LOGIN }),
        403: json(ErrorBody, '`insufficient_scope` (with `reauthorize_url`): the grant lacks a scope of `scope` the person may still give; `scope_not_granted`: a re-authorization came back without it', { 'X-Media-Bff-Login': LOGIN })
      }
    },
    config: { caller: 'proxy' }
  }, async (request, reply) => await answer(request, reply, parseScopes(request.query.scope), forwardedOriginal(request.headers), request.query.redirect === '1'))

  // Envoy's ext_authz sends the request it asks about: its method, its headers (those the
  // SecurityPolicy lets through: the cookie) and its path after this one, no body. Whatever body
  // such a call might carry is left unread.
  await app.register(async (envoy) => {
    envoy.removeAllContentTypeParsers()
    envoy.addContentTypeParser('*', { bodyLimit: 1 }, (_request, _payload, done) => { done(null) })
    // A HEAD is the GET's (Fastify answers it with the GET's route).
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      envoy.route({
        method,
        url: '/auth/check/*',
        schema: {
          tags: ['auth'],
          operationId: `checkSignedInFor${method.charAt(0)}${method.slice(1).toLowerCase()}`,
          summary: `The check as Envoy's ext_authz (Envoy Gateway's extAuth) asks it for a ${method}: the request asked about, its path after /auth/check${method === 'GET' ? ' (and a HEAD); refused, the browser is sent on to sign in' : ''}`,
          // A page's GET refused is a redirect, not the contract's login_required.
          security: method === 'GET' ? SESSION_IF_ANY : SESSION,
          response: {
            200: SIGNED_IN,
            ...(method === 'GET'
              ? { 302: redirect('Signed out, or without a scope the person may give: on to the sign-in (or the consent), and back to the page', 'The sign-in (or consent) URL') }
              : { 401: json(ErrorBody, '`login_required` (with `login_url`)', { 'X-Media-Bff-Login': LOGIN }) }),
            ...refusals({ own: { 403: ['`scope_not_granted`: the account lacks a scope the page needs'] } })
          }
        },
        config: { caller: 'proxy' },
        handler: async (request, reply) => {
          const uri = request.url.slice(`${config.basePath}/auth/check`.length)
          return await answer(request, reply, [], { uri, method: request.method, host: request.host }, true)
        }
      })
    }
  })

  app.get('/.well-known/jwks.json', {
    schema: {
      tags: ['auth'],
      operationId: 'getAssertionKeys',
      summary: 'The public keys that verify the assertions of GET /auth/check (a JWK Set)',
      response: { 200: json(JwkSet, 'Every key of ASSERTION_KEYS, the one that signs first; empty with ASSERTION_KEYS=none', { 'Cache-Control': header(Type.String({ description: `public, max-age=${JWKS_MAX_AGE_S}` }), true) }), ...refusals({}) }
    },
    config: { caller: 'anyone' }
  }, async (_request, reply) => await reply.header('cache-control', `public, max-age=${JWKS_MAX_AGE_S}`).type('application/json; charset=utf-8').send(jwks))
}

export default routes
