// The header: who is signed in, until when at the latest, the permissions (scopes) they granted
// as chips, and the sign-in or sign-out button; the library, upload, files and sessions panels
// only while signed in.
// body[data-session] says which state the page shows (loading, signed-in, signed-out, error),
// for styles and for tests that wait on it.
import type { Session } from '../client/media-bff-client.js'
import { byId, createElement } from './dom.js'

const scopeDescriptions: Record<string, string> = {
  basic: 'Read your files and folders',
  'user.info': 'Read your name and e-mail address',
  manage: 'Edit and remove your files and folders',
  upload: 'Upload files',
  share: 'Share your files by e-mail or embedding'
}

export function renderSession (session: Session | undefined, loginUrl: string): void {
  const signedIn = session?.authenticated === true
  document.body.dataset.session = session === undefined ? 'error' : signedIn ? 'signed-in' : 'signed-out'
  byId('session-loading', HTMLParagraphElement).hidden = true
  byId('user', HTMLDivElement).hidden = !signedIn
  byId('scopes', HTMLDivElement).hidden = !signedIn
  byId('sign-out', HTMLButtonElement).hidden = !signedIn
  const signIn = byId('sign-in', HTMLAnchorElement)
  signIn.href = loginUrl
  signIn.hidden = signedIn
  byId('sign-in-panel', HTMLAnchorElement).href = loginUrl
  byId('signed-out-panel', HTMLElement).hidden = session === undefined || signedIn
  for (const panel of ['library-panel', 'upload-panel', 'files-panel', 'sessions-panel']) byId(panel, HTMLElement).hidden = !signedIn
  const until = byId('session-until', HTMLParagraphElement)
  until.hidden = !signedIn
  if (session?.authenticated !== true) return
  // The absolute end is told, not hidden: no "stay signed in" can move it.
  const absolute = new Date(session.absolute_expires_at)
  until.textContent = `Signed in until ${absolute.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })} at the latest`
  until.dataset.absoluteExpiresAt = session.absolute_expires_at

  const name = session.user.name ?? session.user.email ?? 'Signed in'
  byId('user-name', HTMLSpanElement).textContent = name
  byId('user-email', HTMLSpanElement).textContent = session.user.email ?? ''
  byId('user-initials', HTMLSpanElement).textContent = initials(name)
  byId('scope-list', HTMLUListElement).replaceChildren(...session.scopes.map((scope) => createElement('li', {
    className: scope === 'upload' ? 'chip chip--key' : 'chip',
    text: scope,
    attributes: { 'data-scope': scope, title: scopeDescriptions[scope] ?? scope }
  })))
}

function initials (name: string): string {
  const letters = name.split(/[\s@.]+/).filter((part) => part !== '').slice(0, 2).map((part) => part.charAt(0).toUpperCase())
  return letters.join('') || '?'
}
