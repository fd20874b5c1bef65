// Liveness and readiness for the orchestrator and the load balancer. Readiness says which part is
// wrong (`checks`); why the store cannot be reached (refused, a certificate not trusted, a wrong
// password) only to operators, with the METRICS_TOKEN they read /metrics with: it names internal
// addresses. Without METRICS_TOKEN nobody is told why on the wire; the log says it, once each
// time readiness is lost.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { version } from '../src/version.js'
import { json, refusals, RETRY_AFTER } from './responses.js'
import { ErrorBody } from '../src/contract/index.js'

const READY_RETRY_AFTER_S = 5

const Checks = Type.Object({
  store: Type.String({ description: 'ok, or unreachable (with why, to operators)' }),
  configuration: Type.String({ description: 'ok, or what it lacks' })
})

const NotReady = Type.Object({ error: Type.String(), message: Type.String(), checks: Checks })

const routes: FastifyPluginAsyncTypebox = async (app) => {
  let storeDown = false

  // Probes come every few seconds from every orchestrator and balancer: never traced.
  app.get('/healthz', {
    schema: {
      tags: ['operations'],
      operationId: 'getLiveness',
      summary: 'The process is alive, and which version it runs',
      response: { 200: json(Type.Object({ status: Type.Literal('ok'), version: Type.String() }), 'Alive, and its version'), ...refusals({}) }
    },
    config: { traced: false, caller: 'anyone' }
  }, async () => ({ status: 'ok' as const, version }))

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      operationId: 'getReadiness',
      summary: 'The store answers and the configuration is sane; checks says which part is not',
      response: {
        200: json(Type.Object({ status: Type.Literal('ready'), store: Type.String(), tenants: Type.Integer(), checks: Checks }), 'Ready: the store answers and the configuration names a tenant and a token key'),
        // Either answer: the probe's own, or the contract's error that a request may meet before
        // it (media-bff stopping, the session store out of reach for its cookie).
        503: json(Type.Union([NotReady, ErrorBody]), 'Not ready (with Retry-After): `unavailable` with `checks`, saying which part is wrong (the store, the configuration); or `unavailable` without them, when media-bff is stopping or the session store cannot be reached for the session the request came with', { 'Retry-After': RETRY_AFTER })
      }
    },
    config: { traced: false, caller: 'anyone' }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const checks = { store: 'ok', configuration: 'ok' }
    try {
      await app.stores.ping()
      storeDown = false
    } catch (error) {
      checks.store = app.isOperator(request) ? `unreachable: ${(error as Error).message}` : 'unreachable'
      if (!storeDown) request.log.warn({ reason: (error as Error).message }, 'not ready: the store cannot be reached')
      storeDown = true
    }
    if (app.config.tenants.size === 0 || app.config.tokenKeys.length === 0) checks.configuration = 'no tenant or no token key'
    if (checks.store !== 'ok' || checks.configuration !== 'ok') {
      const message = checks.store !== 'ok' ? 'The session store cannot be reached.' : 'The configuration names no tenant or no token key.'
      return await reply.code(503).header('retry-after', String(READY_RETRY_AFTER_S)).send({ error: 'unavailable', message, checks })
    }
    return { status: 'ready' as const, store: app.config.redisUrl === undefined ? 'memory' : 'redis', tenants: app.config.tenants.size, checks }
  })
}

export default routes
