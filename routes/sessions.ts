// A person's own sessions (docs/reference/http-api.md, "Routes"): list them, end one, end all but
// this one. Thin: the session must be signed in with a live grant (`scopes: []`), and each act is
// one call of the session's face (app.sessions, plugins/session.ts), which finishes it.
import type { FastifyPluginAsyncTypebox, Static } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { AppError } from '../src/errors.js'
import { accessOf } from '../src/grants/access.js'
import type { LiveSession } from '../src/sessions/person-sessions.js'
import { HANDLE_PATTERN } from '../src/sessions/session-index.js'
import { json, refusals } from './responses.js'
import { OtherSessionsEnded, SessionEnded, SessionList, SessionListItem } from '../src/contract/index.js'

const SessionParams = Type.Object({ id: Type.String({ pattern: HANDLE_PATTERN.source }) })

/** What every call here may be refused for: a page's call, signed in, within the person's rate. */
const guards = { csrf: true, signedIn: true, limit: 'calls to /auth/sessions of this person (RATE_LIMIT_SESSIONS_PER_MINUTE)' } as const

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const signedInOnly = { config: { limit: 'sessions' as const, scopes: [] } }

  app.get('/auth/sessions', {
    schema: { tags: ['auth'], operationId: 'listSessions', summary: 'The signed-in person\'s sessions on this deployment, most recently active first', response: { 200: json(SessionList, 'The signed-in person\'s sessions on this deployment, this one among them (`current`)'), ...refusals(guards) } },
    ...signedInOnly
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const current = accessOf(request).signedIn.handle
    return { sessions: (await app.sessions.list(request)).map((session) => view(session, current)) }
  })

  app.delete('/auth/sessions/:id', {
    schema: {
      tags: ['auth'],
      operationId: 'endSession',
      summary: 'End one of the signed-in person\'s sessions (its grant too), on every instance; another than this one needs a recent sign-in',
      params: SessionParams,
      response: {
        200: json(SessionEnded, 'The session and its grant are gone, on every instance; `signed_out` when it was this browser\'s own, whose cookie is cleared'),
        ...refusals({ ...guards, validated: ['the id'], body: true, recentSignIn: true, own: { 404: ['`not_found`: the id is not one of this person\'s live sessions (it may have ended already)'] } })
      }
    },
    ...signedInOnly
  }, async (request, reply) => {
    const { ended, signedOut } = await app.sessions.endOne(request, reply, request.params.id)
    if (ended === 0) throw new AppError('not_found', 'You have no such session; it may have ended already.')
    return { ended, signed_out: signedOut }
  })

  app.post('/auth/sessions/end-others', {
    schema: { tags: ['auth'], operationId: 'endOtherSessions', summary: 'End every session of the signed-in person but this one (a risky act: it needs a recent sign-in)', response: { 200: json(OtherSessionsEnded, 'Every other session of the person has ended, on every instance: how many'), ...refusals({ ...guards, body: true, recentSignIn: true }) } },
    config: { ...signedInOnly.config, recentSignIn: true }
  }, async (request) => {
    return { ended: await app.sessions.endOthers(request) }
  })
}

export default routes

function view (session: LiveSession, current: string): Static<typeof SessionListItem> {
  return {
    id: session.handle,
    created_at: new Date(session.createdAt).toISOString(),
    last_active_at: new Date(session.lastActiveAt).toISOString(),
    device: session.device,
    network: session.network,
    current: session.handle === current
  }
}
