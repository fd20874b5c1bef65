// The application as a plugin: every concern registered in order, nothing started. server.ts
// (production) and dev.ts (the local demo) start it; tests build it with buildApp too. Its
// decorators are the instance's own (fastify-plugin), so whoever built it can reach them.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config/config.js'
import { canonicalConfig } from './config/canonical.js'
import { serverOptions } from './server-options.js'
import configPlugin from '../plugins/config.js'
import errorsPlugin from '../plugins/errors.js'
import auditPlugin from '../plugins/audit.js'
import basePathPlugin from '../plugins/base-path.js'
import accessLogPlugin from '../plugins/access-log.js'
import tracingPlugin from '../plugins/tracing.js'
import securityHeadersPlugin from '../plugins/security-headers.js'
import gatePlugin from '../plugins/gate.js'
import metricsPlugin from '../plugins/metrics.js'
import docsPlugin from '../plugins/docs.js'
import storesPlugin from '../plugins/stores.js'
import mediaPlugin from '../plugins/media.js'
import sessionPlugin from '../plugins/session.js'
import deviceBindingPlugin from '../plugins/device-binding.js'
import tokensPlugin from '../plugins/tokens.js'
import liveUpdatesPlugin from '../plugins/live-updates.js'
import relayPlugin from '../plugins/relay.js'
import demoSitePlugin from '../plugins/demo-site.js'
import clientModulePlugin from '../plugins/client-module.js'
import healthRoutes from '../routes/health.js'
import authRoutes from '../routes/auth.js'
import authCheckRoutes from '../routes/auth-check.js'
import deviceBindingRoutes from '../routes/device-binding.js'
import uploadRoutes from '../routes/uploads.js'
import apiRoutes from '../routes/api.js'
import sessionRoutes from '../routes/sessions.js'
import operatorRoutes from '../routes/operator.js'
import eventRoutes from '../routes/events.js'
import webhookRoutes from '../routes/webhooks.js'
import { CONTRACT } from './contract/index.js'

export interface AppOptions {
  config: Config
  /** The clock of session lifetimes, store TTLs and live channels; Date.now unless a test gives one. */
  clock?: () => number
}

export const app = fp(async (fastify: FastifyInstance, { config, clock }: AppOptions): Promise<void> => {
  await fastify.register(configPlugin, { config, ...(clock === undefined ? {} : { clock }) })
  // Before every route: a route takes the error handler there is when it is registered, so one
  // registered earlier (/metrics, /docs) would answer Fastify's own 500 instead of the contract's.
  await fastify.register(auditPlugin)
  await fastify.register(errorsPlugin)
  // First of all hooks while tracing is on: everything after runs in the request's span.
  if (config.tracing.enabled) await fastify.register(tracingPlugin)
  await fastify.register(accessLogPlugin)
  // Before every plugin with routes: it moves each route under BASE_PATH as it is registered.
  await fastify.register(basePathPlugin)
  // Before the gate: every answer carries them, its refusals too.
  await fastify.register(securityHeadersPlugin)
  // The one admission (plugins/gate.ts), before every plugin with routes: it works out each
  // route's admission as the route is registered, and refuses a request before anything of a
  // session is opened. Its session steps come with the session plugin below.
  await fastify.register(gatePlugin)
  // @fastify/swagger collects the routes as they are registered, /metrics among them.
  await fastify.register(docsPlugin, { describe: describeApi, shared: CONTRACT })
  await fastify.register(metricsPlugin)
  await fastify.register(storesPlugin)
  await fastify.register(mediaPlugin)
  await fastify.register(deviceBindingPlugin)
  await fastify.register(sessionPlugin)
  await fastify.register(tokensPlugin)
  await fastify.register(liveUpdatesPlugin)
  await fastify.register(relayPlugin)
  await fastify.register(healthRoutes)
  await fastify.register(authRoutes)
  await fastify.register(authCheckRoutes)
  await fastify.register(deviceBindingRoutes)
  await fastify.register(uploadRoutes)
  await fastify.register(apiRoutes)
  await fastify.register(sessionRoutes)
  await fastify.register(operatorRoutes)
  await fastify.register(eventRoutes)
  await fastify.register(webhookRoutes)
  await fastify.register(clientModulePlugin)
  if (config.demoSite) await fastify.register(demoSitePlugin)
}, { name: 'media-bff' })

/** A ready-to-listen instance: Fastify created with the options the config demands, app registered. */
export async function buildApp (config: Config, logger?: FastifyServerOptions['logger'] | false, clock?: () => number): Promise<FastifyInstance> {
  const fastify = Fastify(serverOptions(config, logger)).withTypeProvider<TypeBoxTypeProvider>()
  await fastify.register(app, { config, ...(clock === undefined ? {} : { clock }) })
  return fastify
}

let description: Promise<string> | undefined

/**
 * The OpenAPI description, as JSON text: what /docs serves and `npm run openapi` writes. It is the
 * routes of an app built with the canonical configuration (src/config/canonical.ts), never
 * started, so it is the same whatever this process's configuration. Built once per process,
 * when first asked for (a failure is not kept: the next call tries again).
 */
export async function describeApi (): Promise<string> {
  description ??= (async () => {
    const described = await buildApp(canonicalConfig(), false)
    try {
      await described.ready()
      return `${JSON.stringify(described.swagger(), null, 2)}\n`
    } finally {
      await described.close()
    }
  })().catch((error: unknown) => {
    description = undefined
    throw error
  })
  return await description
}
