// The security of each operation in the OpenAPI description (plugins/docs.ts), worked out from the
// admission the gate made of its route's declaration (plugins/gate.ts), the very one it enforces:
// an operators' bearer token, the session cookie where a signed-in session is required (the scopes
// listed as its roles, as OpenAPI 3.1 allows), and X-CSRF on every request a page's script makes.
// A route that answers with or without a session says so in its schema (SESSION_IF_ANY,
// routes/schemas.ts).
import type { FastifyContextConfig } from 'fastify'

/** An OpenAPI security requirement: every scheme named must be satisfied (an empty one: none needed). */
export type SecurityRequirement = Record<string, readonly string[]>

/** The schemes operations name, as components.securitySchemes holds them. */
export function securitySchemes (cookieName: string) {
  return {
    sessionCookie: {
      type: 'apiKey',
      in: 'cookie',
      name: cookieName,
      description: 'The session: an opaque HttpOnly cookie set at the end of a sign-in (GET /auth/callback), sent by the browser with `credentials: \'include\'`. Its name is SESSION_COOKIE_NAME, with the __Host- prefix over https.'
    },
    csrfHeader: {
      type: 'apiKey',
      in: 'header',
      name: 'X-CSRF',
      description: 'Always `1`, on every request a page\'s script makes, reads included (RFC 10017 §6.1.3.3.2), and then an `Origin`, when the browser sends one, of PUBLIC_URL or ALLOWED_ORIGINS. A cross-site form or link cannot send the header, and a cross-site script cannot without a CORS preflight that media-bff grants only to ALLOWED_ORIGINS. Navigations (sign-in, the callback), the media service\'s webhooks, operators\' routes and public files need none.'
    },
    metricsBearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'METRICS_TOKEN, for what operators read. Without METRICS_TOKEN these routes are open; with it, anyone else gets 404, as for a route that does not exist.'
    },
    operatorBearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'OPERATOR_TOKEN, for the operators\' levers: their routes exist only when it is set, and answer 404 to anyone else.'
    }
  } as const
}

/** What a request to this route must carry; undefined when nothing. */
export function operationSecurity (config: FastifyContextConfig | undefined, declared: readonly SecurityRequirement[] | undefined): SecurityRequirement[] | undefined {
  const admission = config?.admission
  let alternatives: readonly SecurityRequirement[]
  if (admission?.operatorToken === 'lever') alternatives = [{ operatorBearer: [] }]
  else if (admission?.operatorToken === 'metrics') alternatives = [{ metricsBearer: [] }, {}]
  else if (admission?.scopes !== undefined) alternatives = [{ sessionCookie: [...admission.scopes] }]
  else alternatives = declared ?? [{}]
  const security = admission?.proof === 'custom-header' ? alternatives.map((alternative) => ({ ...alternative, csrfHeader: [] })) : [...alternatives]
  return security.every((requirement) => Object.keys(requirement).length === 0) ? undefined : security
}
