// The configuration, and the clock: what session lifetimes, store TTLs and live channels measure
// time by (Date.now, unless a test gives one it can move on).
import fp from 'fastify-plugin'
import type { Config } from '../src/config/config.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    /** Epoch milliseconds now. */
    clock: () => number
  }
}

export default fp<{ config: Config, clock?: () => number }>(async (app, { config, clock = Date.now }) => {
  app.decorate('config', config)
  for (const warning of config.warnings) app.log.warn({ warning }, 'configuration: take note')
  app.decorate('clock', clock)
}, { name: 'config', fastify: '5.x' })
