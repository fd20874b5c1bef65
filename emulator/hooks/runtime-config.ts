// The settings a test may change while the emulator runs: the BFF's port (hence its redirect
// URI) is often known only after the emulator has started, and a test of what happens while a
// file is still processing holds files in processing (a long processingMs) and then lets them go
// (processingMs 0).
import type { EmulatorContext } from '../context.js'
import { badRequest } from '../http/emulator-error.js'
import { isAbsoluteHttpUrl } from '../http/absolute-url.js'
import { isProcessingMs, maxProcessingMs, type EmulatorSettings } from '../options.js'

export interface RuntimeConfig {
  redirectUri?: string
  accessTokenTtl?: number
  rotateRefreshTokens?: boolean
  /** Counted from each file's upload, for files already processing too: 0 makes them all ready now. */
  processingMs?: number
}

const changeable = ['redirectUri', 'accessTokenTtl', 'rotateRefreshTokens', 'processingMs']

export function currentRuntimeConfig (settings: EmulatorSettings): Required<RuntimeConfig> {
  return { redirectUri: settings.redirectUri, accessTokenTtl: settings.accessTokenTtl, rotateRefreshTokens: settings.rotateRefreshTokens, processingMs: settings.processingMs }
}

/** Validates everything first, then applies: a bad field changes nothing. */
export function applyRuntimeConfig (context: EmulatorContext, input: unknown): Required<RuntimeConfig> {
  const { settings } = context
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw badRequest('The configuration must be a JSON object.')
  const changes = input as Record<string, unknown>
  const unknown = Object.keys(changes).filter((key) => !changeable.includes(key))
  if (unknown.length > 0) throw badRequest(`Unknown setting(s): ${unknown.join(', ')}; changeable are ${changeable.join(', ')}.`)
  const { redirectUri, accessTokenTtl, rotateRefreshTokens, processingMs } = changes
  if (redirectUri !== undefined && !isAbsoluteHttpUrl(redirectUri)) throw badRequest('redirectUri must be an absolute http(s) URL without a fragment.')
  if (accessTokenTtl !== undefined && (typeof accessTokenTtl !== 'number' || !Number.isFinite(accessTokenTtl) || accessTokenTtl <= 0)) {
    throw badRequest('accessTokenTtl must be a positive number of seconds.')
  }
  if (rotateRefreshTokens !== undefined && typeof rotateRefreshTokens !== 'boolean') throw badRequest('rotateRefreshTokens must be true or false.')
  if (processingMs !== undefined && !isProcessingMs(processingMs)) throw badRequest(`processingMs must be an integer from 0 to ${maxProcessingMs}.`)
  if (redirectUri !== undefined) settings.redirectUri = redirectUri
  if (accessTokenTtl !== undefined) settings.accessTokenTtl = accessTokenTtl as number
  if (rotateRefreshTokens !== undefined) settings.rotateRefreshTokens = rotateRefreshTokens
  if (processingMs !== undefined) {
    settings.processingMs = processingMs
    context.processing.retime(processingMs)
  }
  return currentRuntimeConfig(settings)
}
