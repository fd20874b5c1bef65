// The operators' tokens: METRICS_TOKEN (what they read: /metrics, /docs, why the store is down) and
// OPERATOR_TOKEN (their lever: ending someone's sessions), never the same one.
import type { DeclaredReader } from './declared-reader.js'
import { MIN_SECRET_LENGTH } from './session.js'
import { readOptionalSetting } from './unset-on-purpose.js'

export interface OperatorTokens {
  /** When set, GET /metrics and /docs answer only `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined
  /** When set, the operators' endpoints exist (/operator/...), only for `Authorization: Bearer <operatorToken>`. */
  operatorToken: string | undefined
}

export function readOperatorTokens (read: DeclaredReader, production: boolean): OperatorTokens {
  // `none`: what operators read is open on purpose (src/config/unset-on-purpose.ts).
  const metricsToken = checkBearerToken(read, 'METRICS_TOKEN', readOptionalSetting(read, 'METRICS_TOKEN', production))
  const operatorToken = checkBearerToken(read, 'OPERATOR_TOKEN', read.raw('OPERATOR_TOKEN'))
  if (operatorToken !== undefined && operatorToken === metricsToken) {
    read.problem('OPERATOR_TOKEN', 'must differ from METRICS_TOKEN: whoever scrapes metrics must not be able to end sessions')
  }
  return { metricsToken, operatorToken }
}

/** An operator's token from the environment: long and random enough, and usable in a Bearer header. */
function checkBearerToken (read: DeclaredReader, name: string, token: string | undefined): string | undefined {
  if (token !== undefined && (token.length < MIN_SECRET_LENGTH || !/^[A-Za-z0-9._~+/-]+=*$/.test(token))) {
    read.problem(name, `must be a random string of at least ${MIN_SECRET_LENGTH} characters usable in a Bearer header (letters, digits, - . _ ~ + /)`)
  }
  return token
}
