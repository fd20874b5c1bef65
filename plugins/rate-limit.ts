// Fixed-window rate limits kept in the shared store, so every replica counts together: sign-in
// and callback per client address (the proxy-aware request.ip), registrations per signed-in user.
import fp from 'fastify-plugin'
import type { FastifyRequest, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import { AppError } from '../src/errors.js'
import { StoreUnavailableError } from '../src/store/key-value-store.js'

declare module 'fastify' {
  interface FastifyInstance {
    rateLimitLogin: onRequestAsyncHookHandler
    rateLimitRegister: preHandlerAsyncHookHandler
  }
}

const WINDOW_MS = 60_000

export default fp(async (app) => {
  const { loginPerMinute, registerPerMinute } = app.config.rateLimit

  const limiter = (name: string, limit: number, keyOf: (request: FastifyRequest) => string | undefined) => {
    return async function rateLimit (request: FastifyRequest): Promise<void> {
      const key = keyOf(request)
      if (key === undefined) return
      let count: number
      let ttlMs: number
      try {
        ({ count, ttlMs } = await app.ephemeralKv.increment(`rate:${name}:${key}`, WINDOW_MS))
      } catch (error) {
        // Without the store nothing else works either; let the route report the outage.
        if (error instanceof StoreUnavailableError) return
        throw error
      }
      if (count > limit) {
        throw new AppError('rate_limited', 'Too many requests; wait a moment and try again.', { retryAfter: Math.max(1, Math.ceil(ttlMs / 1000)) })
      }
    }
  }

  app.decorate('rateLimitLogin', limiter('auth', loginPerMinute, (request) => request.ip))
  app.decorate('rateLimitRegister', limiter('register', registerPerMinute, (request) => request.session?.uploadOwner ?? request.session?.grantId))
}, { name: 'rate-limit', dependencies: ['config', 'stores'] })
