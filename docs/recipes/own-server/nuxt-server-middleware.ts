// Nuxt (server/middleware/media-bff.ts): every request to the editors' area needs a person signed
// in with media-bff. nginx asked media-bff already (auth_request) and put its assertion on the
// request; this middleware verifies it anyway, so a request that reached the server some other
// way (past the proxy) carries nobody. The page's handlers then read event.context.person.
// Nuxt's server runs on h3: defineEventHandler, getRequestHeader and createError are h3's, which
// Nuxt imports on its own; this file imports them so it also runs without Nuxt (the suite does).
import { createError, defineEventHandler, getRequestHeader } from 'h3'
import { assertionVerifier, type AssertionCheck } from './verify-assertion.js'

/** The middleware for a media-bff: where its keys are, and what its assertions must say. */
export function mediaBffMiddleware (check: AssertionCheck) {
  const verify = assertionVerifier(check)
  return defineEventHandler(async (event) => {
    if (!event.path.startsWith('/editors/')) return
    const person = await verify(getRequestHeader(event, 'x-media-bff-assertion'))
    if (person === undefined) throw createError({ statusCode: 401, statusMessage: 'Sign in first' })
    event.context.person = person
  })
}

// In a Nuxt app, from useRuntimeConfig(); here from the environment. The keys are fetched at the
// first request, not now.
const MEDIA_BFF = process.env.MEDIA_BFF_URL ?? 'https://www.example.org/media-bff'
export default mediaBffMiddleware({ jwksUrl: `${MEDIA_BFF}/.well-known/jwks.json`, issuer: MEDIA_BFF, audience: process.env.MEDIA_BFF_AUDIENCE ?? MEDIA_BFF })
