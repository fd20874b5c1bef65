// The settings a test may change while the emulator runs: the BFF's port (hence its redirect
// URI) is often known only after the emulator has started.
import { badRequest } from '../http/emulator-error.js'
import { isAbsoluteHttpUrl, type EmulatorSettings } from '../options.js'

export interface RuntimeConfig {
  redirectUri?: string
  accessTokenTtl?: number
  rotateRefreshTokens?: boolean
}

export function currentRuntimeConfig (settings: EmulatorSettings): Required<RuntimeConfig> {
  return { redirectUri: settings.redirectUri, accessTokenTtl: settings.accessTokenTtl, rotateRefreshTokens: settings.rotateRefreshTokens }
}

/** Validates everything first, then applies: a bad field changes nothing. */
export function applyRuntimeConfig (settings: EmulatorSettings, input: unknown): Required<RuntimeConfig> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw badRequest('The configuration must be a JSON object.')
  const changes = input as Record<string, unknown>
  const unknown = Object.keys(changes).filter((key) => !['redirectUri', 'accessTokenTtl', 'rotateRefreshTokens'].includes(key))
  if (unknown.length > 0) throw badRequest(`Unknown setting(s): ${unknown.join(', ')}; changeable are redirectUri, accessTokenTtl, rotateRefreshTokens.`)
  const { redirectUri, accessTokenTtl, rotateRefreshTokens } = changes
  if (redirectUri !== undefined && !isAbsoluteHttpUrl(redirectUri)) throw badRequest('redirectUri must be an absolute http(s) URL without a fragment.')
  if (accessTokenTtl !== undefined && (typeof accessTokenTtl !== 'number' || !Number.isFinite(accessTokenTtl) || accessTokenTtl <= 0)) {
    throw badRequest('accessTokenTtl must be a positive number of seconds.')
  }
  if (rotateRefreshTokens !== undefined && typeof rotateRefreshTokens !== 'boolean') throw badRequest('rotateRefreshTokens must be true or false.')
  if (redirectUri !== undefined) settings.redirectUri = redirectUri
  if (accessTokenTtl !== undefined) settings.accessTokenTtl = accessTokenTtl as number
  if (rotateRefreshTokens !== undefined) settings.rotateRefreshTokens = rotateRefreshTokens
  return currentRuntimeConfig(settings)
}
