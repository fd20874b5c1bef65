// The site's own server verifying media-bff's assertion (docs/guide/own-server.md), with jose, a
// standard JWT library: the signature against media-bff's published keys, the issuer, the
// audience, the algorithm and the times. Copy it into the site's server; nothing here is
// media-bff's code. An assertion that fails any check is nobody: the person is not signed in.
import { createRemoteJWKSet, jwtVerify } from 'jose'

export interface AssertionCheck {
  /** media-bff's key set: PUBLIC_URL (with BASE_PATH) + /.well-known/jwks.json. */
  jwksUrl: string
  /** PUBLIC_URL, with BASE_PATH: the assertion's `iss`. */
  issuer: string
  /** media-bff's ASSERTION_AUDIENCE (PUBLIC_URL, with BASE_PATH, unless set): its `aud`. */
  audience: string
}

/** Who is signed in, as the assertion says. */
export interface SignedInPerson {
  /** Their id at the media service; undefined when the service never said. */
  id: string | undefined
  name: string | undefined
  email: string | undefined
  tenant: string
  scopes: string[]
  signedInAt: Date
  /** Their session, as media-bff's session list names it (never the cookie). */
  session: string
}

/** A verifier: the person an assertion names, or undefined when it is missing, forged, expired or not for this site. */
export function assertionVerifier ({ jwksUrl, issuer, audience }: AssertionCheck): (assertion: string | null | undefined) => Promise<SignedInPerson | undefined> {
  // Fetched once and kept; fetched again when an assertion names a key it does not hold (a rotation).
  const keys = createRemoteJWKSet(new URL(jwksUrl))
  return async (assertion) => {
    if (assertion === null || assertion === undefined || assertion === '') return undefined
    try {
      const { payload } = await jwtVerify(assertion, keys, {
        issuer,
        audience,
        algorithms: ['ES256', 'EdDSA'],
        typ: 'JWT',
        maxTokenAge: '5m',
        requiredClaims: ['exp', 'iat', 'tenant', 'scope', 'auth_time', 'sid']
      })
      const text = (value: unknown): string | undefined => typeof value === 'string' ? value : undefined
      return {
        id: text(payload.sub),
        name: text(payload.name),
        email: text(payload.email),
        tenant: String(payload.tenant),
        scopes: String(payload.scope).split(' ').filter((scope) => scope !== ''),
        signedInAt: new Date(Number(payload.auth_time) * 1000),
        session: String(payload.sid)
      }
    } catch {
      return undefined
    }
  }
}
