// One error type for every 4xx the emulator answers. Its body carries the three keys the real
// service is seen to send (error, error_description, user_message), so clients are exercised
// against all of them.

export interface ErrorBody {
  error: string
  error_description: string
  user_message: string
}

export class EmulatorError extends Error {
  readonly status: number
  readonly code: string
  readonly userMessage: string
  readonly headers: Record<string, string>

  constructor (status: number, code: string, description: string, options: { userMessage?: string, headers?: Record<string, string> } = {}) {
    super(description)
    this.name = 'EmulatorError'
    this.status = status
    this.code = code
    this.userMessage = options.userMessage ?? description
    this.headers = options.headers ?? {}
  }

  toBody (): ErrorBody {
    return errorBody(this.code, this.message, this.userMessage)
  }
}

export function errorBody (error: string, description: string, userMessage = description): ErrorBody {
  return { error, error_description: description, user_message: userMessage }
}

export function badRequest (description: string, code = 'invalid_request'): EmulatorError {
  return new EmulatorError(400, code, description)
}

export function notFound (description = 'Not found.'): EmulatorError {
  return new EmulatorError(404, 'not_found', description)
}
