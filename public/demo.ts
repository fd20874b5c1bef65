// The media-bff demo page: sign in through media-bff, then upload files straight from the
// browser to the media service's upload host. Bundled by plugins/demo-site.ts and served as
// /demo.js; it uses only media-bff-client.ts, the module website authors copy.
//
// Stable hooks for tests and for anyone restyling the page:
//   body[data-session]        loading | signed-in | signed-out | error
//   #sign-in, #sign-in-panel  links to /auth/login?return_to=<this page> (navigations)
//   #sign-out                 button: POST /auth/logout
//   #user-name, #user-email   who is signed in
//   #scope-list > li.chip[data-scope]   granted scopes
//   #notice[data-kind][data-code], #notice-text   the message area; data-code is the error code
//                             (insufficient_scope, scope_not_granted, access_denied, ...) or a
//                             page event (upload_granted, upload_done, signed_out)
//   #grant-upload             inside #notice for insufficient_scope only: goes to reauthorize_url
//   #notice-sign-in           inside #notice for login_required / reauth_required
//   #upload-panel, #upload-form, #folder-id, #upload-title, #file-input, #drop-zone,
//   #chosen-files > [data-testid=chosen-file][data-file-name], #upload-button, #clear-files
//   #progress-list > [data-testid=upload-item][data-file-name][data-state=uploading|done|failed]
//                             each with progress[data-testid=upload-progress] (value and
//                             data-progress 0–100) and [data-testid=upload-status]
//   #results-panel, #result-list > [data-testid=stored-file][data-filename]
import { createMediaBffClient, MediaBffError, type Session, type SignedInSession } from './media-bff-client.js'
import { takeAuthError } from './demo/auth-errors.js'
import { byId } from './demo/dom.js'
import { explainMissingUploadRight, showFailure } from './demo/failures.js'
import { createFilePicker } from './demo/file-picker.js'
import { rememberGrantAttempt, takeGrantAttempt } from './demo/grant-attempt.js'
import { hideNotice, showNotice } from './demo/notice.js'
import { renderSession } from './demo/session-view.js'
import { addProgressRow, clearProgress, hideResults, renderResults, uploadButtonLabel } from './demo/upload-view.js'

const bff = createMediaBffClient()
const form = byId('upload-form', HTMLFormElement)
const folderInput = byId('folder-id', HTMLInputElement)
const titleInput = byId('upload-title', HTMLInputElement)
const uploadButton = byId('upload-button', HTMLButtonElement)
const clearButton = byId('clear-files', HTMLButtonElement)
const signOutButton = byId('sign-out', HTMLButtonElement)

let session: Session | undefined
let busy = false

const picker = createFilePicker((files) => {
  uploadButton.disabled = busy || files.length === 0
  uploadButton.textContent = uploadButtonLabel(files.length)
  clearButton.hidden = files.length === 0
})

/** Sign-in comes back to this very page (path and query, without a stale auth_error). */
function loginUrl (): string {
  return bff.loginUrl({ returnTo: `${window.location.pathname}${window.location.search}` })
}

function account (): string | undefined {
  return session?.authenticated === true ? session.user.email ?? session.user.name ?? undefined : undefined
}

function setBusy (value: boolean): void {
  busy = value
  form.setAttribute('aria-busy', String(value))
  folderInput.disabled = value
  titleInput.disabled = value
  clearButton.disabled = value
  picker.setDisabled(value)
  uploadButton.disabled = value || picker.files().length === 0
  uploadButton.textContent = value ? 'Uploading…' : uploadButtonLabel(picker.files().length)
}

function readFolderId (): number | undefined {
  const value = folderInput.value.trim()
  return /^\d{1,10}$/.test(value) && Number(value) <= 2_147_483_647 ? Number(value) : undefined
}

async function refreshSession (): Promise<void> {
  try {
    session = await bff.getSession()
  } catch (error) {
    session = undefined
    showFailure(error, { doing: 'session check', loginUrl: loginUrl() })
  }
  renderSession(session, loginUrl())
}

async function uploadChosenFiles (): Promise<void> {
  const files = picker.files()
  const folderId = readFolderId()
  if (folderId === undefined) {
    showNotice({ kind: 'error', code: 'invalid_folder_id', text: 'The folder id must be a whole number, 0 or more (0 is your home folder).' })
    folderInput.setAttribute('aria-invalid', 'true')
    folderInput.focus()
    return
  }
  folderInput.removeAttribute('aria-invalid')
  if (files.length === 0) return
  const title = titleInput.value.trim()
  const failureContext = {
    doing: 'upload',
    loginUrl: loginUrl(),
    account: account(),
    beforeGrant: (scopes: string[]) => { rememberGrantAttempt({ scopes, folderId: String(folderId), title }) }
  }

  hideNotice()
  hideResults()
  clearProgress()
  setBusy(true)
  try {
    // One registration for the whole batch; autofinish off, or the service could close the
    // upload after the first file while the others are still on their way.
    const registration = await bff.registerUpload({ folderId, options: { autofinish: false } })
    const rows = files.map(addProgressRow)
    const outcomes = await Promise.allSettled(files.map(async (file, index) => {
      await bff.uploadFile(registration, file, { title, onProgress: rows[index]?.progress })
    }))
    const failures: string[] = []
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') {
        rows[index]?.succeed()
      } else {
        const message = outcome.reason instanceof Error ? outcome.reason.message : 'The upload failed.'
        rows[index]?.fail(message)
        failures.push(message)
      }
    })
    if (failures.length === files.length) {
      showNotice({ kind: 'error', code: 'upload_failed', text: `No file was uploaded. ${failures[0] ?? ''}`.trim() })
      return
    }
    const finished = await bff.finishUpload(registration)
    renderResults(finished.files)
    picker.clear()
    const stored = files.length - failures.length
    showNotice(failures.length === 0
      ? { kind: 'success', code: 'upload_done', text: stored === 1 ? 'Your file is in the media service.' : `All ${stored} files are in the media service.` }
      : { kind: 'warning', code: 'upload_partial', text: `${stored} of ${files.length} files uploaded; the failed ones are marked below.` })
  } catch (error) {
    showFailure(error, failureContext)
    if (error instanceof MediaBffError && error.needsSignIn) await refreshSession()
  } finally {
    setBusy(false)
  }
}

/** Back from the consent page after "Grant upload permission": did the permission come back? */
function reportGrantAttempt (signedIn: SignedInSession): void {
  const attempt = takeGrantAttempt()
  if (attempt === undefined) return
  folderInput.value = attempt.folderId
  titleInput.value = attempt.title
  const missing = attempt.scopes.filter((scope) => !signedIn.scopes.includes(scope))
  if (missing.length === 0) {
    showNotice({ kind: 'success', code: 'upload_granted', text: 'Upload permission granted. Choose your files again to upload them.' })
  } else {
    // The media service only grants what the account is entitled to; asking again cannot help.
    explainMissingUploadRight(account())
  }
}

async function start (): Promise<void> {
  const authError = takeAuthError()
  await refreshSession()
  if (authError !== undefined) {
    takeGrantAttempt()
    showNotice({ kind: authError.code === 'access_denied' ? 'info' : 'error', code: authError.code, text: authError.message })
  } else if (session?.authenticated === true) {
    reportGrantAttempt(session)
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault()
  if (!busy) uploadChosenFiles().catch((error: unknown) => { showFailure(error, { doing: 'upload', loginUrl: loginUrl() }) })
})
clearButton.addEventListener('click', () => { picker.clear() })
signOutButton.addEventListener('click', () => {
  signOutButton.disabled = true
  bff.logout()
    .then(async () => {
      hideResults()
      clearProgress()
      picker.clear()
      await refreshSession()
      showNotice({ kind: 'info', code: 'signed_out', text: 'You are signed out of this site.' })
    })
    .catch((error: unknown) => { showFailure(error, { doing: 'sign-out', loginUrl: loginUrl() }) })
    .finally(() => { signOutButton.disabled = false })
})

start().catch((error: unknown) => { showFailure(error, { doing: 'page start', loginUrl: loginUrl() }) })
