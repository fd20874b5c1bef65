// Operators' levers, registered only when OPERATOR_TOKEN is set and answering only
// `Authorization: Bearer <OPERATOR_TOKEN>` (404 to anyone else, as for a route that does not
// exist; the gate checks it, plugins/gate.ts). The bearer is their proof: no browser sends it by
// itself, so no X-CSRF is asked. docs/guide/operate.md, "Someone left: lock them out".
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { AppError } from '../src/errors.js'
import { json, refusals } from './responses.js'

const PersonParams = Type.Object({
  tenant: Type.String({ minLength: 1, maxLength: 64 }),
  user_id: Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\p{Cc}]+$' })
})

const routes: FastifyPluginAsyncTypebox = async (app) => {
  if (app.config.operatorToken === undefined) return

  app.delete('/operator/users/:tenant/:user_id/sessions', {
    schema: {
      tags: ['operator'],
      operationId: 'endPersonSessions',
      summary: 'End every session and grant of one person (tenant and user id), on every instance',
      params: PersonParams,
      response: {
        200: json(Type.Object({ ended: Type.Integer({ description: 'Live sessions ended' }) }), 'Every session and grant of the person has ended, on every instance: how many were live'),
        ...refusals({
          validated: ['the path'],
          body: true,
          own: {
            400: ['`invalid_request`: the tenant is not one of this deployment\'s'],
            404: ['`not_found`, as for a route that does not exist: no `Authorization: Bearer <OPERATOR_TOKEN>`, or another token']
          }
        })
      }
    },
    config: { operators: 'lever' }
  }, async (request) => {
    const { tenant, user_id: userId } = request.params
    if (!app.config.tenants.has(tenant)) throw new AppError('invalid_request', `Unknown tenant ${tenant}.`, { details: { field: 'tenant' } })
    const ended = await app.sessions.endPerson({ tenant, userId })
    app.audit('operator_lever', { tenant, person: userId, live: ended }, request)
    return { ended }
  })
}

export default routes
