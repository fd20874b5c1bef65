// Liveness and readiness for the orchestrator and the load balancer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { ErrorBody } from './schemas.js'

const READY_RETRY_AFTER_S = 5

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', {
    schema: { tags: ['operations'], summary: 'The process is alive', response: { 200: Type.Object({ status: Type.Literal('ok') }) } }
  }, async () => ({ status: 'ok' as const }))

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      summary: 'The store answers and the configuration is sane',
      response: { 200: Type.Object({ status: Type.Literal('ready'), store: Type.String(), tenants: Type.Integer() }), 503: ErrorBody }
    }
  }, async (_request, reply) => {
    reply.header('cache-control', 'no-store')
    try {
      await app.kv.ping()
    } catch {
      return await reply.code(503).header('retry-after', String(READY_RETRY_AFTER_S)).send({ error: 'unavailable', message: 'The session store cannot be reached.' })
    }
    if (app.config.tenants.size === 0 || app.config.tokenKeys.length === 0) {
      return await reply.code(503).send({ error: 'unavailable', message: 'The configuration names no tenant or no token key.' })
    }
    return { status: 'ready' as const, store: app.config.redisUrl === undefined ? 'memory' : 'redis', tenants: app.config.tenants.size }
  })
}

export default routes
