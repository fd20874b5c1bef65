// plugins/route-guards.ts: guards are attached to the routes that declare them, run before the
// route's own hooks of the same kind, and in the order their plugins were registered.
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { guardRoute } from '../plugins/route-guards.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    testGuarded?: boolean
  }
}

function appWithGuards (ran: string[]): FastifyInstance {
  const app = Fastify()
  for (const name of ['first', 'second']) {
    app.addHook('onRoute', (route) => {
      if (route.config?.testGuarded !== true) return
      guardRoute(route, 'onRequest', (_request, _reply, done) => { ran.push(`${name} onRequest`); done() })
      guardRoute(route, 'preHandler', (_request, _reply, done) => { ran.push(`${name} preHandler`); done() })
    })
  }
  return app
}

t.test('guards run on the routes that declare them, first, in the order they were added', async (t) => {
  const ran: string[] = []
  const app = appWithGuards(ran)
  app.get('/guarded', {
    config: { testGuarded: true },
    onRequest: [(_request, _reply, done) => { ran.push('own onRequest'); done() }],
    preHandler: (_request, _reply, done) => { ran.push('own preHandler'); done() }
  }, async () => ({ ok: true }))
  app.get('/open', async () => ({ ok: true }))

  t.equal((await app.inject('/guarded')).statusCode, 200)
  t.same(ran, ['first onRequest', 'second onRequest', 'own onRequest', 'first preHandler', 'second preHandler', 'own preHandler'])
  ran.length = 0
  t.equal((await app.inject('/open')).statusCode, 200)
  t.same(ran, [], 'a route that declares no guard runs none')
})

t.test('a guard that fails ends the chain before the route\'s own hooks and handler', async (t) => {
  const ran: string[] = []
  const app = Fastify()
  app.addHook('onRoute', (route) => {
    if (route.config?.testGuarded === true) guardRoute(route, 'onRequest', (_request, _reply, done) => { done(Object.assign(new Error('refused'), { statusCode: 403 })) })
  })
  app.get('/guarded', { config: { testGuarded: true }, onRequest: (_request, _reply, done) => { ran.push('own'); done() } }, async () => {
    ran.push('handler')
    return { ok: true }
  })
  t.equal((await app.inject('/guarded')).statusCode, 403)
  t.same(ran, [])
})
