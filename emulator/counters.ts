// What the emulator has done, for tests to assert on ("the BFF refreshed exactly once").
// Only successful operations count, except reuse detections, which are failures by nature.

export interface EmulatorCounters {
  tokenGrants: { authorization_code: number, refresh_token: number }
  refreshReuseDetections: number
  registrations: number
  finishes: number
  uploads: number
  /** CORS preflights (OPTIONS) the upload host answered: a browser sends one for an upload it reports progress on. */
  uploadPreflights: number
  userInfo: number
}

export function zeroCounters (): EmulatorCounters {
  return {
    tokenGrants: { authorization_code: 0, refresh_token: 0 },
    refreshReuseDetections: 0,
    registrations: 0,
    finishes: 0,
    uploads: 0,
    uploadPreflights: 0,
    userInfo: 0
  }
}

export function copyCounters (counters: EmulatorCounters): EmulatorCounters {
  return { ...counters, tokenGrants: { ...counters.tokenGrants } }
}
