// Device-bound sessions (DEVICE_BOUND_SESSIONS; docs/guide/security.md, "Device-bound sessions"):
// where the browser binds its signed-in session to a key of its own, and renews the short-lived
// cookie with it. Chrome makes both calls itself (no page's header), with the session cookie.
// Thin: what each answers is worked out in src/device-binding/.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError, loginRequired } from '../src/errors.js'
import { changedSignals } from '../src/sessions/anomaly.js'
import type { BoundCookie, BindingFault } from '../src/device-binding/device-binding.js'
import { CHALLENGE_HEADER, REGISTRATION_HEADER, RESPONSE_HEADER, SESSION_ID_HEADER } from '../src/device-binding/wire.js'
import { DeviceBindingEnded, DeviceBoundSessionInstructions } from '../src/contract/index.js'
import { header, json, refusals } from './responses.js'
import { SESSION_IF_ANY } from './schemas.js'

const PROOF_HEADERS = Type.Object({
  [RESPONSE_HEADER]: Type.Optional(Type.String({ maxLength: 8200, description: 'The proof: a JWT typed dbsc+jwt, signed by the session\'s key, whose jti is the challenge (an RFC 9651 string)' })),
  [SESSION_ID_HEADER]: Type.Optional(Type.String({ maxLength: 256, description: 'Which binding a refresh is for (an RFC 9651 string)' }))
})
const SET_BOUND_COOKIE = header(Type.String({ description: 'The short-lived cookie, for DEVICE_BOUND_COOKIE_LIFETIME' }), true)
const NEXT_CHALLENGE = header(Type.String({ description: 'The challenge the next renewal signs, and the binding it is for' }), true)
const FAULTS = 'malformed, wrong_type, algorithm, key, signature (not signed by the key), challenge (not one media-bff issued for this session)'

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const binding = app.deviceBinding
  if (binding === undefined) return
  const { config } = app
  const secure = config.session.secureCookie

  const renewed = async (request: FastifyRequest, reply: FastifyReply, cookie: BoundCookie, challenge: string, instructions: Record<string, unknown>): Promise<FastifyReply> => {
    reply.setCookie(cookie.name, cookie.value, { path: '/', httpOnly: true, secure, sameSite: 'strict', maxAge: cookie.maxAgeS })
    return await reply.header(CHALLENGE_HEADER, challenge).header('cache-control', 'no-store').send(instructions)
  }
  const refused = (request: FastifyRequest, step: 'register' | 'refresh', fault: BindingFault): AppError => {
    const { signedIn } = request
    app.audit('device_binding_failed', { tenant: signedIn?.tenant, person: signedIn?.user.id, session: signedIn?.handle, reason: fault, step }, request)
    return new AppError('invalid_request', fault === 'already_bound' ? 'This session is bound to a key already.' : 'The proof was not taken.', { details: { reason: fault } })
  }

  app.post('/auth/device/register', {
    schema: {
      tags: ['auth'],
      operationId: 'bindSessionToDevice',
      summary: 'The browser binds its signed-in session to a key of its own (DBSC registration; Chrome calls it, offered by GET /auth/session)',
      security: SESSION_IF_ANY,
      headers: PROOF_HEADERS,
      response: {
        200: json(DeviceBoundSessionInstructions, 'Bound: from now on the session\'s calls need the short-lived cookie set here, which only this key renews', { 'Set-Cookie': SET_BOUND_COOKIE, 'Secure-Session-Challenge': NEXT_CHALLENGE }),
        ...refusals({
          validated: ['a header'],
          own: {
            400: [`\`invalid_request\` (\`reason\`): the proof was not taken (${FAULTS}); already_bound: a bound session is never bound again; too_late: a session is bound only in the first minutes after its sign-in; device_changed: the call comes from another device than the sign-in`],
            401: ['`login_required`: nobody is signed in with this cookie'],
            403: ['`invalid_request` (`reason` challenge_expired), with a new Secure-Session-Registration while the session may still be bound: the challenge ran out or was used, or the session changed meanwhile; the browser registers again']
          }
        })
      }
    },
    // No limit: a copy of the cookie must not spend the browser's renewals, and without a proof
    // from the key a call costs one MAC.
    config: { caller: 'browser', touchesSession: false }
  }, async (request, reply) => {
    const { signedIn } = request
    if (signedIn === undefined) throw loginRequired(config.basePath)
    // The browser that signed in registers as its first page loads: from another device, it is not
    // that browser.
    const sameDevice = signedIn.signedInFrom === undefined || changedSignals(signedIn.signedInFrom, app.sessions.whereabouts(request), ['device']).length === 0
    const outcome = sameDevice ? await binding.register(request.headers[RESPONSE_HEADER], signedIn, app.clock()) : { kind: 'refused', fault: 'device_changed' } as const
    if (outcome.kind === 'refused') throw refused(request, 'register', outcome.fault)
    // Written now, compared and set against the record as read: a registration racing this one on
    // another replica finds the session bound, or this one loses and is asked to register again.
    if (outcome.kind === 'again' || !await app.sessions.bind(request, outcome.binding)) {
      const offer = binding.offer(signedIn, app.clock())
      if (offer !== undefined) reply.header(REGISTRATION_HEADER, offer)
      throw new AppError('invalid_request', 'The challenge ran out or was used, or the session changed: sign the new one.', { status: 403, details: { reason: 'challenge_expired' } })
    }
    app.audit('device_bound', { tenant: signedIn.tenant, person: signedIn.user.id, session: signedIn.handle, binding: outcome.binding.id, alg: outcome.binding.key.alg }, request)
    return await renewed(request, reply, outcome.cookie, outcome.challenge, outcome.instructions)
  })

  app.post('/auth/device/refresh', {
    schema: {
      tags: ['auth'],
      operationId: 'renewDeviceBoundCookie',
      summary: 'The browser renews a bound session\'s short-lived cookie with a proof from its key (DBSC refresh; Chrome calls it)',
      security: SESSION_IF_ANY,
      headers: PROOF_HEADERS,
      response: {
        200: {
          ...json(DeviceBoundSessionInstructions, 'Renewed (with the cookie and the next challenge); or, as DeviceBindingEnded, the binding is over (the session ended, or is not the one named) and the browser drops its own', { 'Set-Cookie': SET_BOUND_COOKIE, 'Secure-Session-Challenge': NEXT_CHALLENGE }),
          content: { 'application/json': { schema: Type.Union([DeviceBoundSessionInstructions, DeviceBindingEnded]) } }
        },
        ...refusals({
          validated: ['a header'],
          own: {
            400: [`\`invalid_request\` (\`reason\`): the proof is not from the session's key, or not a proof (${FAULTS}); the browser ends its binding, and the session's calls stay refused: its person signs in again, unbound`],
            403: ['`invalid_request` (`reason` proof_required), with Secure-Session-Challenge: sign this challenge with the session\'s key and ask again']
          }
        })
      }
    },
    // No limit: a copy of the cookie must not spend the browser's renewals, and without a proof
    // from the key a call costs one MAC.
    config: { caller: 'browser', touchesSession: false }
  }, async (request, reply) => {
    const outcome = await binding.refresh(request.headers[SESSION_ID_HEADER], request.headers[RESPONSE_HEADER], request.signedIn?.binding, app.clock())
    reply.header('cache-control', 'no-store')
    if (outcome.kind === 'end') return outcome.body
    if (outcome.kind === 'refused') throw refused(request, 'refresh', outcome.fault)
    if (outcome.kind === 'challenge') {
      reply.header(CHALLENGE_HEADER, outcome.challenge)
      throw new AppError('invalid_request', 'Sign the challenge with the session\'s key.', { status: 403, details: { reason: 'proof_required' } })
    }
    const { signedIn } = request
    app.audit('device_binding_renewed', { tenant: signedIn?.tenant, person: signedIn?.user.id, session: signedIn?.handle, binding: signedIn?.binding?.id }, request)
    return await renewed(request, reply, outcome.cookie, outcome.challenge, outcome.instructions)
  })
}

export default routes
