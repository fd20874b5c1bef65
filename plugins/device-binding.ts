// Device-bound sessions (DEVICE_BOUND_SESSIONS, src/device-binding/): made here from the
// configuration, for the gate to ask of every page's signed-in call (plugins/session.ts) and for
// the registration and renewal routes (routes/device-binding.ts). Undefined when off.
import fp from 'fastify-plugin'
import { createDeviceBinding, type DeviceBinding } from '../src/device-binding/device-binding.js'

declare module 'fastify' {
  interface FastifyInstance {
    deviceBinding: DeviceBinding | undefined
  }
}

export default fp(async (app) => {
  const { config, stores } = app
  const settings = config.session.deviceBound
  const { basePath } = config
  const made = settings === undefined
    ? undefined
    : createDeviceBinding({
      secrets: config.session.secrets,
      cookieName: settings.cookieName,
      cookieLifetimeMs: settings.cookieLifetimeMs,
      secureCookie: config.session.secureCookie,
      publicOrigin: config.publicOrigin,
      basePath,
      // Their pages' calls renew the cookie too (the protocol lets only the origin's own otherwise).
      refreshInitiators: config.allowedOrigins.map((origin) => new URL(origin).host).filter((host) => host !== new URL(config.publicOrigin).host),
      // Nothing here needs the short-lived cookie, and a browser must not hold them back to renew it.
      // A sign-in is not among them: one that shows the cookie replaces and keeps the session.
      excludedPaths: [`${basePath}${config.oauth.callbackPath}`, `${basePath}/auth/check`, `${basePath}/auth/device/`],
      // Used challenges sit with used sign-in states: single use, for what is left of their life.
      takeOnce: async (nonce, ttlMs) => await stores.signIns.setIfAbsent(`dbsc-challenge:${nonce}`, '1', ttlMs)
    })
  app.decorate('deviceBinding', made)
}, { name: 'device-binding', dependencies: ['config', 'stores'] })
