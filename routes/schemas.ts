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
