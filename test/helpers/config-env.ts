// For the configuration's unit tests: an environment that loads (outside production), and what
// loadConfig refuses in one, its problems one per line of the ConfigError (none when it loads).
import { ConfigError, loadConfig } from '../../src/config/config.js'

export const validEnv: Readonly<Record<string, string>> = {
  PUBLIC_URL: 'https://media.example.org',
  MEDIA_BASE_URL: 'https://tenant.media.example',
  OAUTH_CLIENT_ID: 'client',
  OAUTH_CLIENT_SECRET: 'secret',
  SESSION_SECRETS: 'a'.repeat(32),
  TOKEN_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`
}

export function problemsOf (env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}
