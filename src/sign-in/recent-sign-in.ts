// Risky acts (deleting a folder or a file, making a share link, ending other sessions) need a
// recent sign-in: one no older than RECENT_SIGN_IN. Past it, the contract's `reauth_required`
// with 403 (the session itself is fine: nothing is to be cleared) and the URL that signs in again,
// asking the service for a fresh login, and brings the person back.
import { AppError } from '../errors.js'

/** The refusal of a risky act by a sign-in older than `maxAgeMs`, or undefined when it is recent. */
export function recentSignInRefusal (authenticatedAt: number, now: number, maxAgeMs: number, signInAgain: string): AppError | undefined {
  if (now - authenticatedAt <= maxAgeMs) return undefined
  const minutes = Math.max(1, Math.round(maxAgeMs / 60_000))
  return new AppError('reauth_required', `This needs a sign-in from the last ${minutes} minute${minutes === 1 ? '' : 's'}: please sign in again.`, {
    status: 403,
    details: { reason: 'recent_sign_in', login_url: signInAgain, max_age: Math.round(maxAgeMs / 1000) }
  })
}
