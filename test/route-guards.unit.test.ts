// plugins/route-guards.ts: guards are attached to the routes that declare them, run before the
// route's own hooks of the same kind, and in the order their plugins were registered; a route
// whose declared guard nothing attached stops the start.
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import routeGuards, { guardRoute, leaveOpen } from '../plugins/route-guards.js'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/config.js'
import { validEnv } from './helpers/config-env.js'

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
      guardRoute(route, 'limit', 'onRequest', (_request, _reply, done) => { ran.push(`${name} onRequest`); done() })
      guardRoute(route, 'limit', 'preHandler', (_request, _reply, done) => { ran.push(`${name} preHandler`); done() })
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
    if (route.config?.testGuarded === true) guardRoute(route, 'limit', 'onRequest', (_request, _reply, done) => { done(Object.assign(new Error('refused'), { statusCode: 403 })) })
  })
  app.get('/guarded', { config: { testGuarded: true }, onRequest: (_request, _reply, done) => { ran.push('own'); done() } }, async () => {
    ran.push('handler')
    return { ok: true }
  })
  t.equal((await app.inject('/guarded')).statusCode, 403)
  t.same(ran, [])
})

t.test('a declared guard no plugin attached stops the start, naming the route; one a plugin left open on purpose does not', async (t) => {
  const app = Fastify()
  await app.register(routeGuards)
  app.addHook('onRoute', (route) => {
    if (route.config?.operators !== undefined) leaveOpen(route, 'operators')
  })
  app.get('/open-on-purpose', { config: { operators: 'metrics' } }, async () => ({ ok: true }))
  app.get('/forgotten', { config: { scopes: ['upload'] } }, async () => ({ ok: true }))
  await t.rejects(async () => { await app.ready() }, /a route would be left open:\n {2}- GET \/forgotten declares scopes \["upload"\], which no plugin attached\n/)
})

t.test('in media-bff itself: a misspelt limit stops the start instead of leaving the route unlimited', async (t) => {
  const config = loadConfig({ ...validEnv, LOG_LEVEL: 'silent' })
  const app = await buildApp(config, false)
  t.teardown(async () => { await app.close() })
  app.post('/uploads/bulk', { config: { limit: 'regsiter' as 'register', scopes: ['upload'] } }, async () => ({ ok: true }))
  await t.rejects(async () => { await app.ready() }, /POST \/uploads\/bulk declares limit "regsiter", which no plugin attached/)
  const sound = await buildApp(config, false)
  t.teardown(async () => { await sound.close() })
  await t.resolves(async () => { await sound.ready() }, 'every route media-bff has is guarded as it declares')
})
