// The short human page a sign-in ends on when it cannot go back to the site: what happened and
// a way forward, nothing more (no codes, states or tokens echoed).

const MESSAGES: Record<string, string> = {
  access_denied: 'You did not allow media-bff to use your media account.',
  invalid_state: 'This sign-in link has expired or was already used.',
  login_csrf: 'This sign-in was started in another browser, so it cannot finish here.',
  sign_in_expired: 'That sign-in expired: newer sign-ins started in this browser took its place. Try again.',
  sign_ins_full: 'No more people can sign in right now (everyone already signed in stays so). Try again in a few minutes.',
  insecure_transport: 'This sign-in reached media-bff over plain http, where its session cookie cannot be set. Use the https address.',
  token_exchange_failed: 'The media service did not accept this sign-in.',
  issuer_mismatch: 'The sign-in answer did not come from the media service it was sent to.',
  unavailable: 'The media service cannot be reached right now.',
  server_error: 'The media service reported a problem with this sign-in.'
}

export function authErrorMessage (code: string): string {
  return MESSAGES[code] ?? 'The sign-in could not be completed.'
}

export function authErrorPage (code: string, loginUrl: string): string {
  const message = escapeHtml(authErrorMessage(code))
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign-in not completed</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}a{color:#0b57d0}</style>
</head><body>
<h1>Sign-in not completed</h1>
<p>${message}</p>
<p><a href="${escapeHtml(loginUrl)}">Try signing in again</a> or <a href="/">go back to the site</a>.</p>
<p><small>Reference: ${escapeHtml(code)}</small></p>
</body></html>`
}

export function escapeHtml (value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c] ?? c))
}
