// Operators' endpoints, behind `Authorization: Bearer <token>`, declared on the route
// (`config: { operators: 'metrics' | 'lever' }`) and enforced by the one hook here, attached to
// those routes alone (plugins/route-guards.ts; registered before any of them): METRICS_TOKEN
// for what operators read (/metrics, /docs; open when unset: keep them off the public proxy then),
// OPERATOR_TOKEN for the levers that act (their routes exist only when it is set). Anyone else
// gets the very answer of a route that does not exist, so the public cannot even tell they are
// there. The comparison is src/bearer-token.ts's, in constant time.
import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { bearerTokenCheck } from '../src/bearer-token.js'
import { guardRoute, leaveOpen } from './route-guards.js'

export type OperatorToken = 'metrics' | 'lever'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Only for `Authorization: Bearer <METRICS_TOKEN | OPERATOR_TOKEN>`; 404 to anyone else. */
    operators?: OperatorToken
  }
  interface FastifyInstance {
    /**
     * Whether this request carries the METRICS_TOKEN (never when it is unset): for routes open to
     * all that tell operators more (why /readyz is not ready).
     */
    isOperator: (request: FastifyRequest) => boolean
  }
}

export default fp(async (app) => {
  const { metricsToken, operatorToken } = app.config
  const checks: Record<OperatorToken, ((authorization: string | undefined) => boolean) | undefined> = {
    metrics: metricsToken === undefined ? undefined : bearerTokenCheck(metricsToken),
    lever: operatorToken === undefined ? undefined : bearerTokenCheck(operatorToken)
  }
  app.decorate('isOperator', (request: FastifyRequest) => checks.metrics?.(request.headers.authorization) === true)
  app.addHook('onRoute', (route) => {
    const which = route.config?.operators
    if (which === undefined) return
    if (!Object.hasOwn(checks, which)) return
    const allowed = checks[which]
    // No METRICS_TOKEN: what operators read is open (the lever's routes are not even registered).
    if (allowed === undefined && which === 'metrics') {
      leaveOpen(route, 'operators')
      return
    }
    guardRoute(route, 'operators', 'onRequest', (request, reply, done) => {
      if (allowed?.(request.headers.authorization) === true) {
        done()
        return
      }
      // Answered here, as a missing route is: the chain goes no further.
      reply.callNotFound()
    })
  })
}, { name: 'operators', dependencies: ['config'] })
