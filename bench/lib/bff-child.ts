// media-bff (or, for comparison, a bare Fastify route) in a process of its own, so its CPU time
// and RSS can be read without the load generator's or the emulator's in them. No logger, unless
// the scenario measures what production's request logs cost (`logs`).
//
// media-bff as it ships: what `npm run build` writes to dist/ (lib/build.ts, before any child
// starts), which `npm run serve` and the image run, not the TypeScript loader's on-the-fly
// transform, whose helpers (a defineProperty per closure made) would be measured as media-bff's.
import Fastify, { type FastifyInstance } from 'fastify'
import { serveParent } from './child-host.js'
import { builtModule } from './build.js'

type AppModule = typeof import('../../src/app.js')
type ConfigModule = typeof import('../../src/config/config.js')
type TracingModule = typeof import('../../src/tracing/sdk.js')

let app: FastifyInstance | undefined
let tracing: Awaited<ReturnType<TracingModule['startTracing']>> | undefined

serveParent({
  start: async (message) => {
    const port = message.port as number
    if (message.mode === 'bare') {
      // The floor for GET /auth/session: the same JSON body from a route that does nothing.
      const body = message.body as object
      const bare = Fastify({ logger: false })
      bare.get('/auth/session', async (_request, reply) => {
        reply.header('cache-control', 'no-store')
        return body
      })
      // The floor for a live channel: a hijacked answer with the head media-bff sends (its
      // headers, as a real channel answered them) and its first event, kept open. Its head is
      // kept flat, as media-bff keeps its own (src/events/stream-hub.ts): the least any server
      // holds for it.
      const eventHead = message.eventHead as Record<string, string> | undefined
      if (eventHead !== undefined) {
        bare.get('/events', (_request, reply) => {
          reply.hijack()
          reply.raw.writeHead(200, eventHead)
          reply.raw.write(String(message.firstEvent))
          const head = (reply.raw as { _header?: unknown })._header
          if (typeof head === 'string') /^/.test(head)
        })
      }
      app = bare
    } else {
      const { buildApp } = await builtModule<AppModule>('src/app.js')
      const { loadConfig } = await builtModule<ConfigModule>('src/config/config.js')
      const env = message.env as Record<string, string>
      const config = loadConfig(env)
      // As src/server.ts starts it: only when the OTEL_* variables turn it on, before the app.
      if (config.tracing.enabled) tracing = (await builtModule<TracingModule>('src/tracing/sdk.js')).startTracing(config, env)
      // logs: the production logger (src/server-options.ts) at the configuration's LOG_LEVEL.
      app = message.logs === true ? await buildApp(config) : await buildApp(config, false)
    }
    await app.listen({ host: '127.0.0.1', port })
    return { url: `http://127.0.0.1:${port}` }
  }
}, async () => {
  await app?.close()
  await tracing?.shutdown()
})
