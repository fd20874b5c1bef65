// Next.js (middleware.ts at the project's root): every request to the editors' area needs a person
// signed in with media-bff. nginx asked media-bff already (auth_request) and put its assertion on
// the request; this middleware verifies it anyway, so a request that reached Next some other way
// carries nobody and is sent to sign in. Pages and route handlers then read the person from the
// assertion (assertionVerifier on headers() from next/headers), never from X-Auth-Request-*: past
// the proxy, anyone could send those beside an assertion of their own. Written with the web's
// Request and Response only, which Next's middleware takes and gives: returning nothing lets the
// request go on.
import { assertionVerifier } from './verify-assertion.js'

const MEDIA_BFF = process.env.MEDIA_BFF_URL ?? 'https://www.example.org/media-bff'
const verify = assertionVerifier({
  jwksUrl: `${MEDIA_BFF}/.well-known/jwks.json`,
  issuer: MEDIA_BFF,
  audience: process.env.MEDIA_BFF_AUDIENCE ?? MEDIA_BFF
})

export async function middleware (request: Request): Promise<Response | undefined> {
  const person = await verify(request.headers.get('x-media-bff-assertion'))
  if (person !== undefined) return undefined
  const url = new URL(request.url)
  const signIn = new URL(`${MEDIA_BFF}/auth/login`)
  signIn.searchParams.set('return_to', `${url.pathname}${url.search}`)
  return Response.redirect(signIn, 302)
}

export const config = { matcher: ['/editors/:path*'] }
