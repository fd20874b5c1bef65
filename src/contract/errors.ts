// Every error media-bff answers with (design: { error, message, ...details }), and what the
// media service said when it refused a relayed call.
import { Type } from 'typebox'

export const UpstreamFailure = Type.Object({
  endpoint: Type.Optional(Type.String({ description: 'The operation media-bff called' })),
  status: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
  user_message: Type.Optional(Type.String({ description: 'Meant for people' }))
}, {
  title: 'UpstreamFailure',
  description: 'What the media service said when it refused: its own text, untrusted (control and bidirectional characters stripped, each field at most 300 characters), to be shown with textContent, never as HTML'
})

export const ErrorBody = Type.Object({
  error: Type.String({ description: 'The code: login_required, reauth_required, insufficient_scope, scope_not_granted, csrf_failed, not_found, invalid_request, rate_limited, upstream_refused, upstream_error, unavailable, ...' }),
  message: Type.String({ description: 'A sentence that may be shown to a person' }),
  login_url: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String({ description: 'Why, where a code has more than one cause: recent_sign_in, for a reauth_required a risky act met' })),
  max_age: Type.Optional(Type.Integer({ description: 'With reason recent_sign_in: the oldest sign-in the act takes, in seconds (RECENT_SIGN_IN)' })),
  required_scopes: Type.Optional(Type.Array(Type.String())),
  reauthorize_url: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  known_scopes: Type.Optional(Type.Array(Type.String())),
  upstream: Type.Optional(UpstreamFailure)
}, { title: 'ErrorBody' })
