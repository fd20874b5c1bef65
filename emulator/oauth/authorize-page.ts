// The sign-in and consent page. It is deliberately plain HTML with stable ids (user-<name>,
// approve, deny) so people and automated browsers can drive it alike. Everything that comes
// from the request is escaped.
import type { FixtureUser } from '../fixture-users.js'
import { formatScopes, type ScopeCatalog } from '../scopes.js'
import type { AuthorizeParams } from './authorize-request.js'

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml (value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

const style = `
  body { font-family: system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; color: #1d2430; }
  h1 { font-size: 1.4rem; } fieldset { border: 1px solid #c8ccd4; border-radius: .4rem; margin: 1rem 0; }
  label { display: block; margin: .3rem 0; } .note { color: #5b6472; font-size: .85rem; }
  .error { color: #a3120b; } button { font-size: 1rem; padding: .4rem 1.2rem; margin-right: .5rem; }`

function layout (title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${style}</style></head>
<body>
${body}
<p class="note">Media service emulator: for development and tests only.</p>
</body>
</html>
`
}

export function renderConsentPage (params: AuthorizeParams, users: FixtureUser[], catalog: ScopeCatalog, problem?: string): string {
  const hidden: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: params.clientId,
    redirect_uri: params.redirectUri,
    scope: formatScopes(params.scopes),
    state: params.state,
    code_challenge: params.codeChallenge,
    code_challenge_method: params.codeChallengeMethod
  }
  const hiddenFields = Object.entries(hidden)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n  ')
  const scopeItems = params.scopes
    .map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(catalog.get(scope) ?? scope)}</li>`)
    .join('\n    ')
  const userItems = users
    .map((user, index) => `<label><input type="radio" name="user" id="user-${escapeHtml(user.name)}" value="${escapeHtml(user.name)}"${index === 0 ? ' checked' : ''}> ${escapeHtml(user.fullName)} (${escapeHtml(user.name)}, ${escapeHtml(user.email)})</label>`)
    .join('\n    ')
  return layout('Sign in to the media service', `<h1>Sign in to the media service</h1>
${problem === undefined ? '' : `<p class="error" role="alert">${escapeHtml(problem)}</p>`}
<p>The application <strong>${escapeHtml(params.clientId)}</strong> asks to:</p>
<ul>
    ${scopeItems}
</ul>
<p class="note">Only the permissions your account has are granted.</p>
<form method="post" action="">
  ${hiddenFields}
  <fieldset>
    <legend>Sign in as</legend>
    ${userItems}
  </fieldset>
  <button type="submit" name="decision" value="approve" id="approve">Approve</button>
  <button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`)
}

export function renderErrorPage (message: string): string {
  return layout('Sign-in error', `<h1>This sign-in request cannot be served</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p>The application that sent you here is misconfigured. You were not redirected back to it.</p>`)
}
