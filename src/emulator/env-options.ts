// Reads the emulator's options from EMULATOR_* environment variables for the command line,
// naming every bad variable at once.
import { defaultUserInputs } from './fixture-users.js'
import type { EmulatorOptions } from './options.js'

export function optionsFromEnv (env: NodeJS.ProcessEnv): EmulatorOptions {
  const problems: string[] = []
  const options: EmulatorOptions = {}
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value === undefined || value === '' ? undefined : value
  }
  const integer = (name: string, min: number, max: number): number | undefined => {
    const value = read(name)
    if (value === undefined) return undefined
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`)
      return undefined
    }
    return Number(value)
  }
  const list = (name: string): string[] | undefined => read(name)?.split(',').map((item) => item.trim()).filter((item) => item !== '')

  const host = read('EMULATOR_HOST')
  if (host !== undefined) options.host = host
  const apiPort = integer('EMULATOR_API_PORT', 0, 65535)
  if (apiPort !== undefined) options.apiPort = apiPort
  const uploadPort = integer('EMULATOR_UPLOAD_PORT', 0, 65535)
  if (uploadPort !== undefined) options.uploadPort = uploadPort
  const clientId = read('EMULATOR_CLIENT_ID')
  if (clientId !== undefined) options.clientId = clientId
  const clientSecret = read('EMULATOR_CLIENT_SECRET')
  if (clientSecret !== undefined) options.clientSecret = clientSecret
  const redirectUri = read('EMULATOR_REDIRECT_URI')
  if (redirectUri !== undefined) options.redirectUri = redirectUri
  const accessTokenTtl = integer('EMULATOR_ACCESS_TOKEN_TTL', 1, 10 * 365 * 86400)
  if (accessTokenTtl !== undefined) options.accessTokenTtl = accessTokenTtl
  const refreshTokenTtl = integer('EMULATOR_REFRESH_TOKEN_TTL', 1, 10 * 365 * 86400)
  if (refreshTokenTtl !== undefined) options.refreshTokenTtl = refreshTokenTtl
  const uploadTtl = integer('EMULATOR_UPLOAD_TTL', 1, 365 * 86400)
  if (uploadTtl !== undefined) options.uploadTtl = uploadTtl
  const rotate = read('EMULATOR_ROTATE_REFRESH_TOKENS')?.toLowerCase()
  if (rotate !== undefined) {
    if (['true', '1', 'yes', 'on'].includes(rotate)) options.rotateRefreshTokens = true
    else if (['false', '0', 'no', 'off'].includes(rotate)) options.rotateRefreshTokens = false
    else problems.push(`EMULATOR_ROTATE_REFRESH_TOKENS must be true or false (got ${JSON.stringify(rotate)})`)
  }
  const dataDir = read('EMULATOR_DATA_DIR')
  if (dataDir !== undefined) options.dataDir = dataDir
  const corsOrigins = list('EMULATOR_CORS_ORIGINS')
  if (corsOrigins !== undefined) options.corsOrigins = corsOrigins
  const signingKey = read('EMULATOR_SIGNING_KEY')
  if (signingKey !== undefined) options.signingKey = signingKey
  const publicApiOrigin = read('EMULATOR_PUBLIC_API_ORIGIN')
  if (publicApiOrigin !== undefined) options.publicApiOrigin = publicApiOrigin
  const publicUploadOrigin = read('EMULATOR_PUBLIC_UPLOAD_ORIGIN')
  if (publicUploadOrigin !== undefined) options.publicUploadOrigin = publicUploadOrigin

  // EMULATOR_PRIVATE_TOKENS=alice=tok1,bob=tok2 fixes the private tokens across restarts.
  const privateTokens = list('EMULATOR_PRIVATE_TOKENS')
  if (privateTokens !== undefined) {
    const tokens = new Map<string, string>()
    for (const entry of privateTokens) {
      const [name, token, extra] = entry.split('=')
      if (name === undefined || token === undefined || extra !== undefined || !defaultUserInputs.some((user) => user.name === name)) {
        problems.push(`EMULATOR_PRIVATE_TOKENS must be a list of user=token with users ${defaultUserInputs.map((user) => user.name).join(', ')} (bad entry ${JSON.stringify(entry)})`)
        continue
      }
      tokens.set(name, token)
    }
    options.users = defaultUserInputs.map((user) => {
      const token = tokens.get(user.name)
      return token === undefined ? { ...user } : { ...user, privateToken: token }
    })
  }
  if (problems.length > 0) throw new TypeError(`Invalid emulator configuration:\n  - ${problems.join('\n  - ')}`)
  return options
}
