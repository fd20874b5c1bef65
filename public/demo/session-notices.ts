// What the page says when the session changes under it (the browser module's session watcher):
// it ended (here, in another tab, from another device, by an operator, or timed out), or it is
// about to time out and may be kept alive, unless it is its absolute end.
import type { SessionEvents } from '../client/media-bff-client.js'
import type { Notice } from './notice.js'

/** The codes of the notices endedNotice gives: each already says why the session ended. */
export const ENDED_NOTICE_CODES: ReadonlySet<string> = new Set(['signed_out', 'signed_out_elsewhere', 'session_expired', 'session_ended'])

export function endedNotice ({ reason, elsewhere }: SessionEvents['ended'], loginUrl: string): Notice {
  const signIn = { id: 'notice-sign-in', label: 'Sign in again', href: loginUrl }
  if (reason === 'signed_out') {
    return elsewhere
      ? { kind: 'info', code: 'signed_out_elsewhere', text: 'You signed out of this site in another tab.' }
      : { kind: 'info', code: 'signed_out', text: 'You are signed out of this site.' }
  }
  if (reason === 'expired') return { kind: 'warning', code: 'session_expired', text: 'Your session timed out. Sign in again to carry on.', action: signIn }
  return { kind: 'warning', code: 'session_ended', text: 'Your session was ended: from another device, by an administrator, or by the media service. Sign in again to carry on.', action: signIn }
}

export function expiringNotice ({ at, absolute }: SessionEvents['expiring'], staySignedIn: () => void): Notice {
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
  if (absolute) {
    return { kind: 'warning', code: 'session_expiring', text: `Your session ends at ${time} and cannot be extended further; sign in again afterwards to carry on.` }
  }
  return {
    kind: 'warning',
    code: 'session_expiring',
    text: `You will be signed out at ${time} unless you carry on.`,
    action: { id: 'stay-signed-in', label: 'Stay signed in', onFollow: staySignedIn }
  }
}
