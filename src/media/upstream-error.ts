// How a call to the media service failed. The service's own error keys are kept so routes can
// pass them on; nothing here carries a token.

export type UpstreamFailure = 'http' | 'timeout' | 'network' | 'malformed'

export interface ServiceErrorFields {
  error?: string
  error_description?: string
  user_message?: string
}

export class UpstreamError extends Error {
  constructor (
    readonly failure: UpstreamFailure,
    readonly endpoint: string,
    message: string,
    readonly status?: number,
    readonly fields: ServiceErrorFields = {}
  ) {
    super(message)
    this.name = 'UpstreamError'
  }

  /** The upstream refused the access token: worth one refresh and retry. */
  get isUnauthorized (): boolean {
    return this.failure === 'http' && this.status === 401
  }
}

const MAX_FIELD_LENGTH = 300

/** Picks the three documented error keys out of a body, as short plain strings. */
export function serviceErrorFields (body: unknown): ServiceErrorFields {
  if (body === null || typeof body !== 'object') return {}
  const fields: ServiceErrorFields = {}
  for (const name of ['error', 'error_description', 'user_message'] as const) {
    const value = (body as Record<string, unknown>)[name]
    if (typeof value === 'string' && value.trim() !== '') fields[name] = value.slice(0, MAX_FIELD_LENGTH)
  }
  return fields
}
