// Turns a failed call into a message that says what happened and what the user can do. The
// scope codes matter most: insufficient_scope can be fixed by granting the permission (one
// button), scope_not_granted cannot (the account lacks the right), so no button loops back.
import { MediaBffError } from '../media-bff-client.js'
import { showNotice, type NoticeAction } from './notice.js'

export interface FailureContext {
  /** What the user was doing, e.g. "upload", to start the sentence. */
  doing: string
  /** Runs before the browser leaves for the consent page. */
  beforeGrant?: (scopes: string[]) => void
  /** Where to sign in again, coming back to this page. */
  loginUrl: string
  account?: string
}

export function explainMissingUploadRight (account: string | undefined): void {
  const who = account === undefined || account === '' ? 'This account' : `This account (${account})`
  showNotice({
    kind: 'error',
    code: 'scope_not_granted',
    text: `${who} has no upload rights in the media service, so it cannot allow this site to upload. Ask an administrator of the media service for upload rights, or sign in with another account.`
  })
}

export function showFailure (error: unknown, context: FailureContext): void {
  if (!(error instanceof MediaBffError)) {
    showNotice({ kind: 'error', code: 'unexpected', text: `The ${context.doing} failed unexpectedly. Please reload the page and try again.` })
    return
  }
  switch (error.code) {
    case 'insufficient_scope': {
      const scopes = error.requiredScopes
      const action: NoticeAction | undefined = error.reauthorizeUrl === undefined
        ? undefined
        : { id: 'grant-upload', label: 'Grant upload permission', href: error.reauthorizeUrl, onFollow: () => context.beforeGrant?.(scopes) }
      showNotice({
        kind: 'warning',
        code: error.code,
        text: `This ${context.doing} needs one more permission: ${scopes.join(', ') || 'upload'}. The media service will ask you to confirm it; afterwards, choose your files again.`,
        ...(action === undefined ? {} : { action })
      })
      return
    }
    case 'scope_not_granted':
      explainMissingUploadRight(context.account)
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
