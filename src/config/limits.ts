// What one client or person may take: body size, request rates, relayed calls in flight.
import type { DeclaredReader } from './declared-reader.js'

export interface Limits {
  /** Relayed calls one signed-in user may have in flight on one instance. */
  relayMaxInFlightPerUser: number
  bodyLimit: number
  rateLimit: { loginPerMinute: number, registerPerMinute: number, finishPerMinute: number, apiPerMinute: number, sessionsPerMinute: number, eventsPerMinute: number }
}

export function readLimits (read: DeclaredReader): Limits {
  return {
    relayMaxInFlightPerUser: read.integer('RELAY_MAX_IN_FLIGHT_PER_USER'),
    bodyLimit: read.integer('BODY_LIMIT'),
    rateLimit: {
      loginPerMinute: read.integer('RATE_LIMIT_LOGIN_PER_MINUTE'),
      registerPerMinute: read.integer('RATE_LIMIT_REGISTER_PER_MINUTE'),
      finishPerMinute: read.integer('RATE_LIMIT_FINISH_PER_MINUTE'),
      apiPerMinute: read.integer('RATE_LIMIT_API_PER_MINUTE'),
      sessionsPerMinute: read.integer('RATE_LIMIT_SESSIONS_PER_MINUTE'),
      eventsPerMinute: read.integer('RATE_LIMIT_EVENTS_PER_MINUTE')
    }
  }
}
