// How a request to a route is admitted, worked out once from what the route declares
// (`config: { caller, operators, limit, scopes, touchesSession, replacesSession }`), in the one
// order every request passes (plugins/gate.ts):
//   1. the caller's proof: the custom header and an allowed Origin for a page's script, the
//      operators' bearer token, nothing for a navigation, a server (its own signature, read
//      with its body), a proxy's check (it changes nothing) or a public file; and a limit per
//      client address;
//   2. the session, opened with the request's count against its person's limit;
//   3. the scopes the session's grant must hold, and for a risky act a recent sign-in.
// Nothing of a session is opened, counted or touched before the proof: a refused request changes
// nothing of anyone's. A declaration that does not hold together (scopes without a session, a
// limit no one counts, an operators' route without its token's name) stops the start.
import { PERSON_LIMITS, type LimitName } from '../rate-limits.js'

/**
 * Who calls a route: a page's script acting with the session (`page`, the default), the browser
 * itself at the top level (`navigation`: sign-in, the callback), the browser on its own account,
 * with the session and without a page's header (`browser`: a device-bound session's registration
 * and renewal, which Chrome makes itself), another server with a credential
 * of its own (`server`: the service's signed webhooks), an operator with a bearer token
 * (`operator`), a reverse proxy asking on a browser's behalf who is signed in (`proxy`: GET
 * /auth/check, which reads the session itself and never opens, touches or writes it), or anyone,
 * for a public resource that acts on no session (`anyone`).
 */
export type Caller = 'page' | 'navigation' | 'browser' | 'server' | 'operator' | 'proxy' | 'anyone'

/** The operators' tokens: METRICS_TOKEN for what they read, OPERATOR_TOKEN for their levers. */
export type OperatorToken = 'metrics' | 'lever'

/** What a route declares in its `config` (plugins/gate.ts makes it Fastify's route config). */
export interface Declaration {
  /** Who calls the route; a page's script unless it says otherwise. */
  caller?: Caller
  /** Only for `Authorization: Bearer <METRICS_TOKEN | OPERATOR_TOKEN>`; 404 to anyone else. */
  operators?: OperatorToken
  /** The rate limit the route counts against (src/rate-limits.ts). */
  limit?: LimitName
  /** Scopes the signed-in session's grant must hold (empty: signed in with a live grant); request.access is then set. */
  scopes?: readonly string[]
  /** false: a request is not activity (GET /auth/session, which tabs ask whenever they are looked at again). */
  touchesSession?: boolean
  /** The route begins a new session in place of the request's (the sign-in callback). */
  replacesSession?: boolean
  /** A risky act: the sign-in must be no older than RECENT_SIGN_IN (src/sign-in/recent-sign-in.ts). */
  recentSignIn?: boolean
}

export interface Admission {
  caller: Caller
  /** What the caller must show before anything else. */
  proof: 'custom-header' | 'bearer' | 'none'
  /** The operators' token the bearer must be (proof `bearer`). */
  operatorToken: OperatorToken | undefined
  /** Counted per client address, with the proof. */
  addressLimit: LimitName | undefined
  /** Counted per signed-in person, with the session. */
  personLimit: LimitName | undefined
  /** Whether the request's session is opened at all. */
  usesSession: boolean
  /** Scopes the grant must hold (empty: signed in with a live grant); undefined: no grant needed. */
  scopes: readonly string[] | undefined
  /** The request moves the session's idle timeout on. */
  isActivity: boolean
  /** The route begins a new session in place of the request's (an expired one is replaced, not ended). */
  replacesSession: boolean
  /** The sign-in must be recent (RECENT_SIGN_IN), checked after the scopes. */
  recentSignIn: boolean
  /**
   * The call is vouched for (src/sessions/vouch.ts: a bound session's short-lived cookie, anomaly
   * signals) before it may act as its session: a page's.
   */
  vouched: boolean
}

const CALLERS: readonly Caller[] = ['page', 'navigation', 'browser', 'server', 'operator', 'proxy', 'anyone']
const PROOF = { page: 'custom-header', navigation: 'none', browser: 'none', server: 'none', operator: 'bearer', proxy: 'none', anyone: 'none' } as const

export class DeclarationError extends Error {
  override name = 'DeclarationError'
}

/**
 * The admission of a route (`what`: its method and URL, for the message), from its declaration and
 * the limits there are; throws DeclarationError naming every problem.
 */
export function admissionOf (what: string, declared: Declaration, limits: ReadonlySet<string>): Admission {
  const problems: string[] = []
  const caller = declared.caller ?? (declared.operators === undefined ? 'page' : 'operator')
  if (!CALLERS.includes(caller)) problems.push(`caller "${String(caller)}" is none of ${CALLERS.join(', ')}`)
  if ((caller === 'operator') !== (declared.operators !== undefined)) problems.push('an operators\' route names its token (operators: metrics or lever), and only such a route does')
  const usesSession = caller === 'page' || caller === 'navigation' || caller === 'browser'
  const { limit, scopes } = declared
  if (limit !== undefined && !limits.has(limit)) problems.push(`limit "${String(limit)}" is no limit media-bff counts (${[...limits].join(', ')})`)
  const perPerson = limit !== undefined && PERSON_LIMITS.has(limit)
  if (perPerson && !usesSession) problems.push(`limit "${limit}" counts per person, and a call whose caller is ${caller} opens no session`)
  if (scopes !== undefined && caller !== 'page') problems.push(`scopes need a page's call with a session, and this route's caller is ${caller}`)
  if (!usesSession && (declared.touchesSession !== undefined || declared.replacesSession !== undefined)) problems.push(`a call whose caller is ${caller} has no session to touch or replace`)
  if (declared.recentSignIn === true && scopes === undefined) problems.push('a recent sign-in is asked of a signed-in call: declare its scopes (empty for none)')
  if (problems.length > 0) throw new DeclarationError(`${what}: ${problems.join('; ')}`)
  return {
    caller,
    proof: PROOF[caller],
    operatorToken: declared.operators,
    addressLimit: limit !== undefined && !perPerson ? limit : undefined,
    personLimit: perPerson ? limit : undefined,
    usesSession,
    scopes,
    isActivity: usesSession && declared.touchesSession !== false,
    replacesSession: declared.replacesSession === true,
    recentSignIn: declared.recentSignIn === true,
    vouched: caller === 'page'
  }
}
