// Turns a failed call into a message that says what happened and what the user can do. The
// scope codes matter most: insufficient_scope can be fixed by granting the permission (one
// button), scope_not_granted cannot (the account lacks the right), so no button loops back.
import { MediaBffError } from '../client/media-bff-client.js'
import { missingRightText } from './missing-right.js'
import { showNotice, shownNoticeCode, type NoticeAction } from './notice.js'
import { ENDED_NOTICE_CODES } from './session-notices.js'

export interface FailureContext {
  /** What the user was doing, e.g. "upload", to start the sentence. */
  doing: string
  /** Runs before the browser leaves for the consent page. */
  /** The person asked to grant `scopes` from the notice's link: ask (in a popup, the link's default stopped). */
  grant?: (scopes: string[], event: MouseEvent) => void
  /** The account lacks these scopes for good: stop offering them. */
  onNoRight?: (scopes: string[]) => void
  /** Where to sign in again, coming back to this page. */
  loginUrl: string
  account?: string | undefined
}

export function explainMissingRight (scopes: readonly string[], account: string | undefined): void {
  showNotice({ kind: 'error', code: 'scope_not_granted', text: missingRightText(scopes, account) })
}

export function showFailure (error: unknown, context: FailureContext): void {
  // A call made for the session that has just ended comes back login_required after the page was
  // told why it ended: that notice stays, it says more.
  if (error instanceof MediaBffError && error.code === 'login_required' && ENDED_NOTICE_CODES.has(shownNoticeCode() ?? '')) return
  if (!(error instanceof MediaBffError)) {
    showNotice({ kind: 'error', code: 'unexpected', text: `The ${context.doing} failed unexpectedly. Please reload the page and try again.` })
    return
  }
  switch (error.code) {
    case 'insufficient_scope': {
      const scopes = error.requiredScopes
      const action: NoticeAction | undefined = error.reauthorizeUrl === undefined
        ? undefined
        : { id: 'notice-grant', label: `Allow ${scopes.join(', ') || 'it'}`, href: error.reauthorizeUrl, onFollow: (event) => context.grant?.(scopes, event) }
      showNotice({
        kind: 'warning',
        code: error.code,
        text: `The ${context.doing} needs one more permission: ${scopes.join(', ') || 'unknown'}. The media service will ask you to confirm it in a new window; this page stays as it is.`,
        ...(action === undefined ? {} : { action })
      })
      return
    }
    case 'scope_not_granted':
      context.onNoRight?.(error.requiredScopes)
      explainMissingRight(error.requiredScopes, context.account)
      return
    case 'login_required':
    case 'reauth_required':
      showNotice({
        kind: 'warning',
        code: error.code,
        text: error.code === 'reauth_required' ? 'Your sign-in with the media service has ended. Please sign in again.' : 'Your session has ended. Please sign in again.',
        action: { id: 'notice-sign-in', label: 'Sign in again', href: context.loginUrl }
      })
      return
    default:
      showNotice({ kind: 'error', code: error.code, text: error.message })
  }
}
