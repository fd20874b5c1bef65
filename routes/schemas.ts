// Schemas shared by several routes. Response schemas double as a whitelist: fields not listed
// here are never serialised, so nothing leaks by accident.
import { Type } from '@fastify/type-provider-typebox'

export const ErrorBody = Type.Object({
  error: Type.String(),
  message: Type.String(),
  login_url: Type.Optional(Type.String()),
  required_scopes: Type.Optional(Type.Array(Type.String())),
  reauthorize_url: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  known_scopes: Type.Optional(Type.Array(Type.String())),
  upstream: Type.Optional(Type.Object({
    endpoint: Type.Optional(Type.String()),
    status: Type.Optional(Type.Integer()),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
    user_message: Type.Optional(Type.String())
  }))
})

/** A file as media-bff passes it on (src/media/read-media-file.ts): the documented fields only. */
export const MediaFile = Type.Object({
  file_id: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  folder_id: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  title: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
  size: Type.Optional(Type.Number()),
  status: Type.Optional(Type.String({ description: 'processing until the service has transcoded it, then ready' })),
  urls: Type.Optional(Type.Object({ file: Type.Optional(Type.String()) }))
})

/**
 * The security of a route that answers with or without a session (the OpenAPI description's
 * `security`; its schemes are plugins/docs-security.ts's). Routes that need one say so with
 * `config: { scopes }`, and the description follows from that.
 */
export const SESSION_IF_ANY: ReadonlyArray<Record<string, readonly string[]>> = [{ sessionCookie: [] }, {}]
