// media-bff sends a failed sign-in back to the page as ?auth_error=<code>. The page explains it
// once and then removes the parameter, so a reload or a bookmark does not repeat the message.

const messages: Record<string, string> = {
  access_denied: 'Sign-in was cancelled. Nothing was changed.',
  unavailable: 'The media service could not be reached to finish signing in. Please try again in a moment.',
  token_exchange_failed: 'The media service did not confirm the sign-in. Please try again.',
  issuer_mismatch: 'The sign-in answer did not come from the media service it was sent to, so it was refused.',
  invalid_request: 'The media service sent back an incomplete answer. Please try again.',
  server_error: 'The media service had a problem while signing you in. Please try again.',
  temporarily_unavailable: 'The media service is busy. Please try signing in again in a moment.'
}

export interface AuthError {
  code: string
  message: string
}

/** Reads ?auth_error= from the address, removes it from the address bar and explains it. */
export function takeAuthError (): AuthError | undefined {
  const url = new URL(window.location.href)
  const code = url.searchParams.get('auth_error')
  if (code === null) return undefined
  url.searchParams.delete('auth_error')
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`)
  const safeCode = /^[a-z_]{1,64}$/.test(code) ? code : 'unknown'
  return { code: safeCode, message: messages[safeCode] ?? `Signing in did not work (${safeCode}). Please try again.` }
}
