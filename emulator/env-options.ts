// Reads the emulator's options from EMULATOR_* environment variables, with the project's one
// environment reader (src/config/env-reader.ts), so every bad variable is named at once. Only the
// variables that are set become options; startEmulator fills in the rest.
import { EnvReader, type Env } from '../src/config/env-reader.js'
import { isAbsoluteHttpUrl } from './http/absolute-url.js'
import { defaultUserInputs } from './fixture-users.js'
import { maxProcessingMs, type EmulatorOptions } from './options.js'

const maxTtlSeconds = 10 * 365 * 86400

/** Records a problem in `read` for every bad EMULATOR_* variable; dev.ts shares the reader. */
export function readEmulatorEnv (read: EnvReader): EmulatorOptions {
  const options: EmulatorOptions = {
    host: read.raw('EMULATOR_HOST'),
    apiPort: read.optionalInteger('EMULATOR_API_PORT', { min: 0, max: 65535 }),
    uploadPort: read.optionalInteger('EMULATOR_UPLOAD_PORT', { min: 0, max: 65535 }),
    clientId: read.raw('EMULATOR_CLIENT_ID'),
    clientSecret: read.raw('EMULATOR_CLIENT_SECRET'),
    redirectUri: read.raw('EMULATOR_REDIRECT_URI'),
    accessTokenTtl: read.optionalInteger('EMULATOR_ACCESS_TOKEN_TTL', { min: 1, max: maxTtlSeconds }),
    refreshTokenTtl: read.optionalInteger('EMULATOR_REFRESH_TOKEN_TTL', { min: 1, max: maxTtlSeconds }),
    uploadTtl: read.optionalInteger('EMULATOR_UPLOAD_TTL', { min: 1, max: 365 * 86400 }),
    rotateRefreshTokens: read.raw('EMULATOR_ROTATE_REFRESH_TOKENS') === undefined ? undefined : read.boolean('EMULATOR_ROTATE_REFRESH_TOKENS', true),
    dataDir: read.raw('EMULATOR_DATA_DIR'),
    corsOrigins: read.raw('EMULATOR_CORS_ORIGINS') === undefined ? undefined : read.list('EMULATOR_CORS_ORIGINS'),
    signingKey: read.raw('EMULATOR_SIGNING_KEY'),
    publicApiOrigin: read.raw('EMULATOR_PUBLIC_API_ORIGIN'),
    publicUploadOrigin: read.raw('EMULATOR_PUBLIC_UPLOAD_ORIGIN'),
    processingMs: read.optionalInteger('EMULATOR_PROCESSING_MS', { min: 0, max: maxProcessingMs }),
    users: privateTokens(read),
    webhooks: webhookForEveryUser(read)
  }
  // Unset variables leave no key behind, so `{ ...fromEnv, ...overrides }` works as expected.
  for (const key of Object.keys(options) as Array<keyof EmulatorOptions>) {
    if (options[key] === undefined) delete options[key]
  }
  return options
}

/** For the command line: the options, or a TypeError naming every bad variable. */
export function optionsFromEnv (env: Env): EmulatorOptions {
  const read = new EnvReader(env)
  const options = readEmulatorEnv(read)
  if (read.problems.length > 0) throw new TypeError(`Invalid emulator configuration:\n  - ${read.problems.join('\n  - ')}`)
  return options
}

/** EMULATOR_PRIVATE_TOKENS=alice=tok1,bob=tok2 fixes the private tokens across restarts. */
function privateTokens (read: EnvReader): EmulatorOptions['users'] {
  if (read.raw('EMULATOR_PRIVATE_TOKENS') === undefined) return undefined
  const tokens = new Map<string, string>()
  for (const entry of read.list('EMULATOR_PRIVATE_TOKENS')) {
    const [name, token, extra] = entry.split('=')
    if (name === undefined || token === undefined || extra !== undefined || !defaultUserInputs.some((user) => user.name === name)) {
      read.problem('EMULATOR_PRIVATE_TOKENS', `must be a list of user=token with users ${defaultUserInputs.map((user) => user.name).join(', ')} (bad entry ${JSON.stringify(entry)})`)
      continue
    }
    tokens.set(name, token)
  }
  return defaultUserInputs.map((user) => {
    const token = tokens.get(user.name)
    return token === undefined ? { ...user } : { ...user, privateToken: token }
  })
}

/**
 * EMULATOR_WEBHOOK_URL with EMULATOR_WEBHOOK_KEY: one endpoint, for every event, in every fixture
 * user's account (the service configures endpoints per account).
 */
function webhookForEveryUser (read: EnvReader): EmulatorOptions['webhooks'] {
  const url = read.raw('EMULATOR_WEBHOOK_URL')
  const key = read.raw('EMULATOR_WEBHOOK_KEY')
  if (url === undefined && key === undefined) return undefined
  if (url === undefined || key === undefined) {
    read.problem(url === undefined ? 'EMULATOR_WEBHOOK_URL' : 'EMULATOR_WEBHOOK_KEY', 'is needed with ' + (url === undefined ? 'EMULATOR_WEBHOOK_KEY' : 'EMULATOR_WEBHOOK_URL'))
    return undefined
  }
  if (!isAbsoluteHttpUrl(url)) {
    read.problem('EMULATOR_WEBHOOK_URL', `must be an absolute http(s) URL without a fragment, got "${url}"`)
    return undefined
  }
  return defaultUserInputs.map((user) => ({ user: user.name, url, key }))
}
