// What a browser is told as it binds a session to its key and renews the short-lived cookie
// (routes/device-binding.ts): the WICG DBSC protocol's session instructions, and the answer that
// ends a binding on the browser's side.
import { Type } from 'typebox'

const ScopeRule = Type.Object({
  type: Type.Union([Type.Literal('include'), Type.Literal('exclude')]),
  domain: Type.String({ description: 'PUBLIC_URL\'s host' }),
  path: Type.String()
})

export const DeviceBoundSessionInstructions = Type.Object({
  session_identifier: Type.String({ description: 'The binding\'s id: what the browser names its refreshes by (Sec-Secure-Session-Id); never the session\'s id or handle' }),
  refresh_url: Type.String({ description: 'Where the browser renews the short-lived cookie (POST, under BASE_PATH)' }),
  scope: Type.Object({
    origin: Type.String({ description: 'PUBLIC_URL\'s origin' }),
    include_site: Type.Literal(false),
    scope_specification: Type.Array(ScopeRule, { description: 'What needs no short-lived cookie, on PUBLIC_URL\'s origin: the sign-in\'s callback, the proxy\'s check, these routes' })
  }),
  allowed_refresh_initiators: Type.Optional(Type.Array(Type.String(), { description: 'The hosts of ALLOWED_ORIGINS: their pages\' calls renew the cookie too' })),
  credentials: Type.Array(Type.Object({
    type: Type.Literal('cookie'),
    name: Type.String({ description: 'The session cookie\'s name and -bound' }),
    attributes: Type.String({ description: 'As the Set-Cookie beside it says: Path=/; Secure; HttpOnly; SameSite=Strict' })
  }), { minItems: 1, maxItems: 1 })
}, { title: 'DeviceBoundSessionInstructions' })

export const DeviceBindingEnded = Type.Object({
  continue: Type.Literal(false, { description: 'The browser drops its device-bound session and its key: the session it spoke for is over, or was never this one' })
}, { title: 'DeviceBindingEnded', additionalProperties: false })
