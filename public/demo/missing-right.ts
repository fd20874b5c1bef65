// Why the signed-in account cannot have a permission (a scope the browser module's access says is
// denied, or a scope_not_granted failure), as a sentence naming the account and what to do.

const missingRight: Record<string, string> = {
  upload: 'has no upload rights in the media service, so it cannot allow this site to upload',
  manage: 'has no right to create or change folders in the media service',
  share: 'has no right to share files in the media service'
}

/** Why a scope cannot be had, as a sentence naming the account. */
export function missingRightText (scopes: readonly string[], account: string | undefined): string {
  const who = account === undefined || account === '' ? 'This account' : `This account (${account})`
  const scope = scopes[0]
  const what = scope === undefined ? 'lacks a right in the media service that this needs' : missingRight[scope] ?? `lacks the media service right "${scope}"`
  return `${who} ${what}. Ask an administrator of the media service for this right, or sign in with another account.`
}
