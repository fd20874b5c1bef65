// The security events media-bff records, declared once: their names, what each means, and the
// fields every line carries. One JSON line per event, in the log stream marked
// `"audit": "<event>"` (or in a file of their own: AUDIT_LOG). The schema is versioned
// (`audit_schema`): a field may be added within a version, never renamed, retyped or dropped.
// docs/reference/audit-events.md is written from here (`npm run generate`).

/** How an audit line is told from any other in the log stream (src/log-destination.ts). */
export const AUDIT_MARK = '"audit":"'

/** The schema's version: a new one only when a field changes meaning, type or name. */
export const AUDIT_SCHEMA = 1

/** Every event: what it records, and its `outcome`. */
export const AUDIT_EVENTS = {
  sign_in: { outcome: 'success', description: 'A person signed in: a new session began (its `session`), on `tenant` as `person`.' },
  sign_in_refused: { outcome: 'refused', description: 'A sign-in ended without a session. `reason`: the callback\'s outcome (`access_denied` and the authorization server\'s other errors, `invalid_state`, `issuer_mismatch`, `exchange_failed`, `unavailable`...).' },
  sign_out: { outcome: 'success', description: 'A person signed out of this browser\'s session (POST /auth/logout).' },
  session_ended: { outcome: 'success', description: 'Sessions ended, one line per ending. `reason`: signed_out, expired, grant_gone, replaced, ended_by_person, other_sessions, operator, over_cap or anomaly; `sessions`: the handles of those that ended; `live`: how many were live.' },
  operator_lever: { outcome: 'success', description: 'An operator ended every session and grant of `person` on `tenant` (DELETE /operator/users/...); `live`: how many sessions were live.' },
  proof_refused: { outcome: 'refused', description: 'A call was refused before anything of a session was opened: no `X-CSRF: 1`, or an `Origin` not allowed (`reason`: csrf_failed); or a proxy\'s check of a write another site\'s page started, answered as signed out (`reason`: cross_site_write).' },
  scope_refused: { outcome: 'refused', description: 'A signed-in call needed a scope the grant lacks. `reason`: insufficient_scope (the person may still give it) or scope_not_granted; `scopes`: the missing ones.' },
  recent_sign_in_required: { outcome: 'refused', description: 'A risky act (deleting a folder or a file, a share link, ending other sessions) was refused: the sign-in is older than RECENT_SIGN_IN, and the person is asked to sign in again.' },
  refresh_failed: { outcome: 'failure', description: 'The session\'s tokens could not be renewed. `reason`: reauth_required (the media service no longer takes the grant: the session ends) or unavailable (the token endpoint cannot be reached now: the session is kept).' },
  relay_refused: { outcome: 'refused', description: 'A call to /api/ was refused by the relay\'s allowlist: an operation it does not relay (`reason`: not_relayed), or input an operation does not take (`reason`: invalid_input, `field`).' },
  device_bound: { outcome: 'success', description: 'A session was bound to a key its browser cannot export (DEVICE_BOUND_SESSIONS): from now on its calls need the short-lived cookie only that key renews. `binding`: the binding\'s id (the browser\'s DBSC session identifier); `alg`: ES256 or RS256.' },
  device_binding_renewed: { outcome: 'success', description: 'A bound session\'s short-lived cookie was renewed with a proof from its key. `binding`: its id.' },
  device_binding_failed: { outcome: 'refused', description: 'A device binding\'s registration or renewal was refused. `reason`: malformed, wrong_type, algorithm, key, signature (not signed by the session\'s key: another device), challenge (not one media-bff issued for this session) or already_bound (a bound session is never bound again); `step`: register or refresh.' },
  device_binding_refused: { outcome: 'refused', description: 'A call of a bound session came without the short-lived cookie its key renews, or with one that does not hold: the session cookie was used elsewhere than in the browser it was bound to, or that browser could not renew. `reason`: bound_cookie_missing, bound_cookie_expired or bound_cookie_invalid. The call was answered as signed out.' },
  session_anomaly: { outcome: 'failure', description: 'A signed-in call came from another device or network than its sign-in (SESSION_ANOMALY_SIGNALS); recorded once per session and place per instance (so never held back: there are only so many). `reason`: the signals that changed (device, network); `device` and `network`: the call\'s; `signed_in_device` and `signed_in_network`: the sign-in\'s; `action`: what SESSION_ANOMALY did (log, reauth or end).' },
  session_handoff: { outcome: 'success', description: 'A page in another site\'s frame (FRAME_ANCESTORS) took the session its sign-in popup began into its own cookie partition (POST /auth/session/handoff), with the popup\'s one-time code and its own verifier, from the sign-in\'s device and network.' },
  url_refused: { outcome: 'refused', description: 'The media service handed out an address media-bff may not use (an upload host not in UPLOAD_ALLOWED_HOSTS, a URL off the tenant\'s API); nothing of it reached the browser. `reason`: why.' }
} as const satisfies Record<string, { outcome: AuditOutcome, description: string }>

export type AuditEvent = keyof typeof AUDIT_EVENTS
export type AuditOutcome = 'success' | 'refused' | 'failure'

/** The fields of every line (besides pino's `level`, `time`, `pid`, `hostname` and `msg`). */
export const AUDIT_FIELDS = {
  audit: 'The event: one of those below.',
  audit_schema: `The schema's version: ${AUDIT_SCHEMA}.`,
  outcome: 'success, refused or failure: fixed per event.',
  reqId: 'The request the event happened in (its X-Request-Id); absent for an event of no request (an ending found later).',
  tenant: 'The tenant, when one is known.',
  person: 'The person\'s user id at the media service, when known.',
  session: 'The session\'s handle, as the person\'s own session list shows it: never the cookie or the session\'s id in the store.',
  client: 'The client\'s address, as TRUST_PROXY lets media-bff see it.',
  reason: 'Why, for events that say (above).',
  suppressed: 'How many lines of this event were left out just before this one: refusals are recorded at most 20 a second each, so a flood cannot push out the events that matter.'
} as const

/** What a caller gives; the names are AUDIT_FIELDS' and the event's own extras. */
export interface AuditDetails {
  reqId?: string
  tenant?: string
  person?: string
  session?: string
  client?: string
  reason?: string
  /** The event's own extras (`sessions`, `live`, `scopes`, `field`, `binding`...). */
  [extra: string]: string | number | readonly string[] | undefined
}

/** The longest text kept in a field; a list keeps at most MAX_LIST entries. */
const MAX_TEXT = 256
const MAX_LIST = 50

/** The line's fields for pino: every value bounded, nothing undefined. */
export function auditLine (event: AuditEvent, details: AuditDetails, suppressed = 0): Record<string, unknown> {
  const line: Record<string, unknown> = { audit: event, audit_schema: AUDIT_SCHEMA, outcome: AUDIT_EVENTS[event].outcome }
  for (const [name, value] of Object.entries(details)) {
    if (value === undefined) continue
    line[name] = typeof value === 'string' ? value.slice(0, MAX_TEXT) : typeof value === 'number' ? value : value.slice(0, MAX_LIST).map((entry) => entry.slice(0, MAX_TEXT))
  }
  if (suppressed > 0) line.suppressed = suppressed
  return line
}

/** Events recorded at most PER_SECOND a second each: refusals, which anyone can cause at will. */
export const THROTTLED: ReadonlySet<AuditEvent> = new Set(['sign_in_refused', 'proof_refused', 'scope_refused', 'recent_sign_in_required', 'relay_refused', 'url_refused', 'device_binding_failed', 'device_binding_refused'])
const PER_SECOND = 20

/** Whether a line of `event` is recorded now, and how many were left out before it. */
export function auditThrottle (now: () => number = () => performance.now()): (event: AuditEvent) => { record: boolean, suppressed: number } {
  const windows = new Map<AuditEvent, { startedAt: number, count: number, suppressed: number }>()
  return (event) => {
    if (!THROTTLED.has(event)) return { record: true, suppressed: 0 }
    const at = now()
    let window = windows.get(event)
    if (window === undefined || at - window.startedAt >= 1000) {
      window = { startedAt: at, count: 0, suppressed: window?.suppressed ?? 0 }
      windows.set(event, window)
    }
    if (window.count >= PER_SECOND) {
      window.suppressed++
      return { record: false, suppressed: 0 }
    }
    window.count++
    const suppressed = window.suppressed
    window.suppressed = 0
    return { record: true, suppressed }
  }
}
