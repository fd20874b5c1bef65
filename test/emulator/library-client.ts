// Calls to the emulator's library API for the library tests: apiCall (test/helpers/emulator.ts)
// with paths under /api/, and the tokens the library tests sign in with.
import type { RunningEmulator } from '../../emulator/index.js'
import { apiCall, signIn, type ApiAnswer, type ApiCallOptions } from '../helpers/emulator.js'

/** `path` is under /api/ unless it is a whole URL. */
export async function call (emulator: RunningEmulator, path: string, options: ApiCallOptions = {}): Promise<ApiAnswer> {
  return await apiCall(path.startsWith('http') ? path : `${emulator.baseUrl}/api/${path}`, options)
}

/** Access tokens: alice with every scope, alice with basic only, bob (basic user.info). */
export async function libraryTokens (emulator: RunningEmulator): Promise<{ alice: string, aliceBasic: string, bob: string }> {
  const [alice, aliceBasic, bob] = await Promise.all([
    signIn(emulator, { user: 'alice', scope: 'basic user.info manage upload share' }),
    signIn(emulator, { user: 'alice', scope: 'basic' }),
    signIn(emulator, { user: 'bob', scope: 'basic user.info manage upload share' })
  ])
  return { alice: alice.access_token, aliceBasic: aliceBasic.access_token, bob: bob.access_token }
}
