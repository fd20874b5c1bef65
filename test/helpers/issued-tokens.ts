// Every access and refresh token the emulator has issued, read from its test hook, so tests can
// search logs, stores and browser state for them.
export interface IssuedTokens { access: string[], refresh: string[] }

export async function issuedTokens (emulatorBaseUrl: string): Promise<IssuedTokens> {
  const response = await fetch(`${emulatorBaseUrl}/__emulator/tokens`)
  const body = await response.json() as { access_tokens: Array<{ token: string }>, refresh_tokens: Array<{ token: string }> }
  return { access: body.access_tokens.map((t) => t.token), refresh: body.refresh_tokens.map((t) => t.token) }
}
