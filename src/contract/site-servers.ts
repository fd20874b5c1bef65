// What the site's own servers read (routes/auth-check.ts): the assertion GET /auth/check hands
// them, its claims declared here, and the JWK Set that verifies it.
import { Type } from 'typebox'

export const AssertionClaims = Type.Object({
  iss: Type.String({ description: 'PUBLIC_URL, with BASE_PATH' }),
  aud: Type.String({ description: 'ASSERTION_AUDIENCE (PUBLIC_URL, with BASE_PATH, unless set)' }),
  sub: Type.Optional(Type.String({ description: 'The person\'s id at the media service; absent when the service never said' })),
  name: Type.Optional(Type.String({ description: 'Their name, when the service said' })),
  email: Type.Optional(Type.String({ description: 'Their e-mail, when the service said' })),
  tenant: Type.String({ description: 'The tenant they signed in to' }),
  scope: Type.String({ description: 'The scopes their grant holds, space-separated' }),
  auth_time: Type.Integer({ description: 'When they signed in (seconds since the epoch)' }),
  sid: Type.String({ description: 'Their session\'s id as GET /auth/sessions lists it: never the cookie\'s' }),
  iat: Type.Integer({ description: 'Issued at (seconds)' }),
  nbf: Type.Integer({ description: 'Not before (seconds): the same as iat' }),
  exp: Type.Integer({ description: 'Expires (seconds): at most ASSERTION_LIFETIME after iat, never after the session ends' }),
  jti: Type.String({ description: 'A random id, unique to this assertion' })
}, { title: 'AssertionClaims', additionalProperties: false })

export const PublicJwk = Type.Object({
  kty: Type.Union([Type.Literal('EC'), Type.Literal('OKP')]),
  crv: Type.Union([Type.Literal('P-256'), Type.Literal('Ed25519')]),
  x: Type.String(),
  y: Type.Optional(Type.String()),
  kid: Type.String({ description: 'The id ASSERTION_KEYS gives the key; an assertion\'s header names it' }),
  alg: Type.Union([Type.Literal('ES256'), Type.Literal('EdDSA')]),
  use: Type.Literal('sig')
}, { title: 'PublicJwk' })

export const JwkSet = Type.Object({
  keys: Type.Array(PublicJwk, { description: 'The key that signs first, then the others still served' })
}, { title: 'JwkSet' })
