// What a completed sign-in puts in the (new, rotated) session, and what it carries over from the
// session it replaces. Only a re-authorization by the same user on the same tenant carries
// anything: the scopes that user was already refused (so a route does not send them round
// again), the owner of their upload registrations (so uploads in flight can still finish), and
// their profile where this sign-in could not read user/info, and the key the session was bound
// to when the sign-in began in the browser holding that key (a re-authorization must not leave a
// window in which another key could be registered, nor lock out a browser that lost its key). A
// different user, or another tenant, starts clean.
import type { LoginTransaction } from './login-transactions.js'
import { unionScopes } from '../scopes.js'
import { RECORD_FORMAT } from '../store/record-format.js'
import type { Binding } from '../device-binding/device-binding.js'

export interface PreviousSignIn {
  userId?: string | undefined
  tenant?: string | undefined
  deniedScopes?: string[] | undefined
  uploadOwner?: string | undefined
  name?: string | undefined
  email?: string | undefined
  entitlements?: string[] | undefined
  /** The key the session it replaces was bound to (DEVICE_BOUND_SESSIONS). */
  binding?: Binding | undefined
}

export interface CompletedSignInFacts {
  grantId: string
  grantedScopes: string[]
  user: { userId: string | undefined, name: string | undefined, email: string | undefined, scopes: string[] | undefined }
  /** Scopes this re-authorization asked to add and did not get. */
  deniedScopes: string[]
}

export interface SignedInSession {
  format: number
  grantId: string
  tenant: string
  user: { id: string | undefined, name: string | undefined, email: string | undefined }
  entitlements: string[] | undefined
  deniedScopes: string[]
  uploadOwner: string
  authenticatedAt: number
  lastSeen: number
  /** The same person's re-authorization keeps the browser's binding: its key and cookie go on. */
  binding?: Binding
}

export function sessionAfterSignIn (previous: PreviousSignIn, completed: CompletedSignInFacts, transaction: Pick<LoginTransaction, 'tenant' | 'addedScopes' | 'boundBy'>, now: number): SignedInSession {
  const sameUser = previous.userId !== undefined && previous.userId === completed.user.userId && previous.tenant === transaction.tenant
  // Denials matter only while the user keeps asking for more; a plain sign-in forgets them.
  const carriedDenials = sameUser && transaction.addedScopes.length > 0 ? previous.deniedScopes ?? [] : []
  return {
    format: RECORD_FORMAT,
    grantId: completed.grantId,
    tenant: transaction.tenant,
    // user/info failing during a re-authorization must not blank the same person's profile.
    user: {
      id: completed.user.userId,
      name: completed.user.name ?? (sameUser ? previous.name : undefined),
      email: completed.user.email ?? (sameUser ? previous.email : undefined)
    },
    entitlements: completed.user.scopes ?? (sameUser ? previous.entitlements : undefined),
    // A scope granted now is no longer denied, whatever was refused before.
    deniedScopes: unionScopes(carriedDenials, completed.deniedScopes).filter((scope) => !completed.grantedScopes.includes(scope)),
    uploadOwner: (sameUser ? previous.uploadOwner : undefined) ?? completed.grantId,
    authenticatedAt: now,
    lastSeen: now,
    // Only when the sign-in began in the browser that holds the key (LoginTransaction.boundBy): a
    // browser that lost it (or never had it) starts unbound, and may bind again.
    ...(sameUser && previous.binding !== undefined && previous.binding.id === transaction.boundBy ? { binding: previous.binding } : {})
  }
}
