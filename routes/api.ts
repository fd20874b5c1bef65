// The relay: the media service as the website's API back-end. Each allowlisted operation
// (src/relay/operations.ts) is one route at /api/<path>; everything else under /api/ is the
// ordinary 404. The browser's cookie, CSRF header and Origin stay here; the user's token is
// attached upstream, refreshed and retried once after a 401 invalid_token like every other call.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import formBody from '@fastify/formbody'
import { accessOf } from '../src/grants/access.js'
import { RELAY_OPERATIONS } from '../src/relay/operations.js'
import { bodyFromForm, upstreamRequestFor } from '../src/relay/upstream-request.js'
import { relaySchema, routePath } from './relay-schemas.js'

const routes: FastifyPluginAsyncTypebox = async (app) => {
  // Url-encoded bodies, as the service itself accepts them; only in this scope.
  await app.register(formBody)
  // The relay's own address, where the service's links to its API are pointed instead.
  const publicApiUrl = `${app.config.publicOrigin}${app.config.basePath}/api`

  for (const operation of RELAY_OPERATIONS) {
    const hasBody = Object.keys(operation.body).length > 0
    app.route({
      method: operation.method,
      url: `/api/${routePath(operation.path)}`,
      exposeHeadRoute: false,
      schema: relaySchema(operation),
      ...(hasBody ? { preValidation: async (request) => { request.body = bodyFromForm(operation, request.body) } } : {}),
      config: { limit: 'api', scopes: [operation.scope], recentSignIn: operation.recentSignIn === true },
      onResponse: async (_request, reply) => { app.metrics.relayed(operation.name, reply.statusCode) },
      handler: async (request, reply) => {
        const upstream = {
          ...upstreamRequestFor(operation, {
            params: request.params as Record<string, unknown>,
            query: request.query as Record<string, unknown>,
            body: request.body,
            headers: request.headers
          }),
          requestId: request.id
        }
        const { signedIn, tenant, withToken } = accessOf(request)
        const answer = await withToken(async (token) => await app.relay(upstream, token, { apiUrl: tenant.apiUrl, publicApiUrl }, signedIn.budgetKey))
        return await reply.code(answer.status).headers(answer.headers).send(answer.body)
      }
    })
  }
}

export default routes
