// The media-bff demo page: sign in through media-bff, pick a folder of your media library,
// upload files straight from the browser to the media service's upload host, and share them.
// Bundled by `npm run build:demo` and served as /demo.js by plugins/demo-site.ts; it uses only
// the browser module in public/client/, as website authors use it. Permissions are asked for
// before the person starts, through the module's access (granted, grantable or denied), in a
// popup so nothing on the page is lost; a blocked popup makes the consent round trip back to this
// page instead.
//
// The page's stable hooks (ids and data attributes for tests and restyling): public/demo/README.md.
import { createMediaBffClient, MediaBffError, readSignInError, type ConsentReturn, type FolderContents, type LiveChannel, type Session } from './client/media-bff-client.js'
import { renderCapabilities, renderCheckingCapabilities, renderFolderName } from './demo/capabilities.js'
import { byId } from './demo/dom.js'
import { explainMissingRight, showFailure, type FailureContext } from './demo/failures.js'
import { clearFileList, renderFileList, type ListedFile } from './demo/file-list.js'
import { createFilePicker } from './demo/file-picker.js'
import { createFolderBrowser } from './demo/folder-browser.js'
import { readGrantAttempt, type GrantAttempt } from './demo/grant-attempt.js'
import { setUpNewFolderForm } from './demo/new-folder.js'
import { hideNotice, showNotice } from './demo/notice.js'
import { followSessionChanges } from './demo/session-changes.js'
import { followLiveUpdates } from './demo/live-updates.js'
import { createSessionsPanel } from './demo/sessions-panel.js'
import { folderFromUrl, pagePath } from './demo/page-url.js'
import { renderSession } from './demo/session-view.js'
import { makeShareLink } from './demo/share-link.js'
import { uploadBatch } from './demo/upload-flow.js'
import { clearProgress, uploadButtonLabel } from './demo/upload-view.js'

// media-bff serves this page at its own root, under BASE_PATH when one is set: its calls go there too.
const bff = createMediaBffClient({ basePath: window.location.pathname.replace(/\/[^/]*$/, '') })
// Every tab of this browser hears of sign-outs, added scopes and the coming timeout.
const watch = bff.watchSession()
// What each permission allows now, and the consent round trips that add one.
const access = bff.access()
const form = byId('upload-form', HTMLFormElement)
const titleInput = byId('upload-title', HTMLInputElement)
const uploadButton = byId('upload-button', HTMLButtonElement)
const clearButton = byId('clear-files', HTMLButtonElement)
const signOutButton = byId('sign-out', HTMLButtonElement)

let session: Session | undefined
let accessKnown = false
let contents: FolderContents | undefined
let listed = new Map<number, ListedFile>()
let fresh = new Set<number>()
let shownFolderId: number | undefined
let busy = false
/** This tab's live channel while signed in: uploads processed, in this tab and the person's others. */
let live: LiveChannel | undefined

const picker = createFilePicker((files) => {
  uploadButton.disabled = busy || files.length === 0
  uploadButton.textContent = uploadButtonLabel(files.length)
  clearButton.hidden = files.length === 0
})

/** Sign-in comes back to this very page and folder (without a stale auth_error). */
function loginUrl (): string {
  return bff.loginUrl({ returnTo: pagePath() })
}

/** media-bff's incremental consent: the scopes granted so far plus this one, back to this folder. */
function consentUrl (scope: string): string {
  return access.consentUrl(scope, { returnTo: pagePath() })
}

function account (): string | undefined {
  return session?.authenticated === true ? session.user.email ?? session.user.name ?? undefined : undefined
}

function failureContext (doing: string, attempt?: GrantAttempt): FailureContext {
  return {
    doing,
    loginUrl: loginUrl(),
    account: account(),
    onNoRight: (scopes) => {
      access.deny(scopes)
      renderAccess()
    },
    ...(attempt === undefined ? {} : { grant: (scopes: string[], event: MouseEvent) => { grantInPopup(event, scopes, attempt) } })
  }
}

const browser = createFolderBrowser({
  bff,
  onShown: (folder, shown) => {
    // "new" marks what was just uploaded here; elsewhere it means nothing.
    if (shownFolderId !== folder.id) fresh = new Set()
    shownFolderId = folder.id
    contents = shown
    document.body.dataset.folderId = String(folder.id)
    renderFolderName(folder.name)
    renderAccess()
  },
  onFailed: (error) => { showFailure(error, failureContext('folder listing')) },
  onMissing: (id) => {
    showNotice({ kind: 'warning', code: 'folder_not_found', text: `Folder ${id} does not exist (any more), so your home folder is shown instead.` })
  }
})

const newFolder = setUpNewFolderForm(bff, browser, (error) => {
  showFailure(error, failureContext('new folder', { action: 'new-folder' }))
})

const sessionsPanel = createSessionsPanel(bff, (error) => { showFailure(error, failureContext('session list')) })

/** What renderAccess last showed: a check that finds the same changes nothing on the page. */
let renderedAccess = ''

/** The actions each scope allows, the consent links (they return to the open folder), the files. */
function renderAccess (): void {
  if (session?.authenticated !== true || !accessKnown) return
  const capabilities = { upload: access.of('upload'), manage: access.of('manage'), share: access.of('share') }
  renderedAccess = JSON.stringify(capabilities)
  byId('upload-panel', HTMLElement).dataset.upload = capabilities.upload
  renderCapabilities(capabilities, { account: account(), consentUrl })
  listed = renderFileList(contents?.files ?? [], {
    share: capabilities.share,
    shareConsentUrl: consentUrl('share'),
    fresh,
    onShare: (file) => { share(file).catch(() => undefined) },
    onAskShare: (fileId, event) => { grantInPopup(event, ['share'], { action: 'share', fileId }) }
  })
}

async function share (file: ListedFile): Promise<void> {
  try {
    await makeShareLink(bff, file)
  } catch (error) {
    showFailure(error, failureContext('share link', { action: 'share', fileId: file.id }))
  }
}

function setBusy (value: boolean): void {
  busy = value
  form.setAttribute('aria-busy', String(value))
  titleInput.disabled = value
  clearButton.disabled = value
  picker.setDisabled(value)
  browser.setDisabled(value)
  newFolder.setDisabled(value)
  uploadButton.disabled = value || picker.files().length === 0
  uploadButton.textContent = value ? 'Uploading…' : uploadButtonLabel(picker.files().length)
}

async function refreshSession (): Promise<void> {
  try {
    session = await watch.check()
  } catch (error) {
    session = undefined
    showFailure(error, { doing: 'session check', loginUrl: loginUrl() })
  }
  renderSession(session, loginUrl())
}

/** What each permission allows: the session and what the account could grant (the module reads both). */
async function checkAccess (): Promise<boolean> {
  try {
    await access.check()
    return true
  } catch (error) {
    showFailure(error, failureContext('permission check'))
    return false
  }
}

async function uploadChosenFiles (): Promise<void> {
  const files = picker.files()
  if (files.length === 0) return
  const folder = browser.current()
  const title = titleInput.value.trim()
  hideNotice()
  clearProgress()
  setBusy(true)
  try {
    const stored = await uploadBatch(bff, { files, folderId: folder.id, folderName: folder.name, title })
    if (stored !== undefined) {
      picker.clear()
      if (browser.current().id === folder.id) {
        fresh = new Set(stored)
        await browser.refresh()
      }
    }
  } catch (error) {
    showFailure(error, failureContext('upload', { action: 'upload', title }))
    if (error instanceof MediaBffError && error.needsSignIn) await refreshSession()
  } finally {
    setBusy(false)
  }
}

/**
 * A consent link clicked: asked in a popup (from the click itself, as a popup needs), so nothing on
 * the page is lost (files picked, a title typed). A blocked popup goes on to the link as before.
 */
function grantInPopup (event: MouseEvent, scopes: string[], attempt: GrantAttempt): void {
  event.preventDefault()
  access.askInPopup(scopes, { state: attempt }).then(async (answer) => {
    if (answer.outcome === 'blocked') return
    await refreshSession()
    renderAccess()
    if (answer.outcome === 'closed') {
      showNotice({ kind: 'info', code: 'consent_closed', text: `The window was closed before ${scopes.join(', ')} was allowed, so nothing was changed.` })
      return
    }
    if (answer.outcome === 'refused') {
      showNotice({ kind: 'info', code: 'access_denied', text: `You did not allow ${scopes.join(', ')}, so nothing was changed. You can allow it whenever you need it.` })
      return
    }
    await continueAfterConsent(answer)
  }).catch((error: unknown) => { showFailure(error, failureContext('permission check')) })
}

/** Back from the consent page (or its popup): did the permission come back? Then carry on with what was asked. */
async function continueAfterConsent (back: ConsentReturn): Promise<void> {
  if (session?.authenticated !== true) return
  const attempt = readGrantAttempt(back.state)
  if (attempt.action === 'upload' && attempt.title !== undefined) titleInput.value = attempt.title
  if (!back.granted) {
    // The media service grants only what the account has; asking again cannot help (the module
    // now says denied for what is missing).
    explainMissingRight(back.missing, account())
    return
  }
  switch (attempt.action) {
    case 'upload':
      showNotice({ kind: 'success', code: 'upload_granted', text: `Uploads allowed. Choose files to upload to ${browser.current().name}.` })
      return
    case 'new-folder':
      showNotice({ kind: 'success', code: 'manage_granted', text: `You may now create folders. Name the new folder to create in ${browser.current().name}.` })
      newFolder.open()
      return
    case 'share': {
      const file = attempt.fileId === undefined ? undefined : listed.get(attempt.fileId)
      showNotice({ kind: 'success', code: 'share_granted', text: file === undefined ? 'Sharing allowed. Choose "Share link" on a file.' : `Sharing allowed. Here is the link for ${file.title}.` })
      if (file !== undefined) await share(file)
    }
  }
}

async function start (): Promise<void> {
  // Explained once: a reload or a bookmark does not repeat it.
  const authError = readSignInError(undefined, { removeFromAddressBar: true })
  await refreshSession()
  if (session?.authenticated !== true) {
    if (authError !== undefined) showNotice({ kind: authError.code === 'access_denied' ? 'info' : 'error', code: authError.code, text: authError.message })
    return
  }
  live = followLiveUpdates(bff, {
    shown: () => contents === undefined || shownFolderId === undefined ? undefined : { folderId: shownFolderId, contents },
    show: (next) => {
      contents = next
      renderAccess()
    },
    reload: () => { browser.refresh().catch(() => undefined) }
  })
  renderCheckingCapabilities()
  const [checked] = await Promise.all([checkAccess(), browser.open(folderFromUrl()), sessionsPanel.refresh()])
  // A cancelled consent drops what was being attempted; the message says nothing changed and
  // the offer stays (the person may change their mind: access_denied is no missing right).
  const back = checked ? access.returned(authError) : undefined
  if (authError !== undefined) {
    const declinedNow = back?.refused === true
    showNotice({
      kind: authError.code === 'access_denied' ? 'info' : 'error',
      code: authError.code,
      text: declinedNow ? `You did not allow ${back.scopes.join(', ')}, so nothing was changed. You can allow it whenever you need it.` : authError.message
    })
  }
  accessKnown = true
  renderAccess()
  if (back !== undefined && authError === undefined) await continueAfterConsent(back)
}

form.addEventListener('submit', (event) => {
  event.preventDefault()
  if (!busy) uploadChosenFiles().catch((error: unknown) => { showFailure(error, { doing: 'upload', loginUrl: loginUrl() }) })
})
clearButton.addEventListener('click', () => { picker.clear() })
byId('allow-uploads', HTMLAnchorElement).addEventListener('click', (event) => {
  grantInPopup(event, ['upload'], { action: 'upload', title: titleInput.value.trim() })
})
byId('grant-manage', HTMLAnchorElement).addEventListener('click', (event) => {
  grantInPopup(event, ['manage'], { action: 'new-folder' })
})
// In another site's frame (FRAME_ANCESTORS) the service's sign-in page cannot be shown: the
// sign-in runs in a popup, and hands the session over to this frame.
for (const id of ['sign-in', 'sign-in-panel']) {
  byId(id, HTMLAnchorElement).addEventListener('click', (event) => {
    if (window.self === window.top) return
    event.preventDefault()
    bff.signInInPopup().then((answer) => {
      if (answer.outcome === 'signed_in') window.location.reload()
      else if (answer.outcome === 'blocked') showNotice({ kind: 'warning', code: 'popup_blocked', text: 'The sign-in window was blocked: allow popups for this site, then sign in again.' })
      else if (answer.outcome !== 'closed') showNotice({ kind: 'info', code: answer.error ?? answer.outcome, text: 'The sign-in was not completed.' })
    }).catch((error: unknown) => { showFailure(error, { doing: 'sign-in', loginUrl: loginUrl() }) })
  })
}
signOutButton.addEventListener('click', () => {
  signOutButton.disabled = true
  // The watcher hears of it (here and in every other tab): see 'ended' below.
  bff.logout()
    .catch((error: unknown) => { showFailure(error, { doing: 'sign-out', loginUrl: loginUrl() }) })
    .finally(() => { signOutButton.disabled = false })
})

/** The session ended, however: nothing of it stays on the page. (A new sign-in reloads the page.) */
function leaveSignedIn (): void {
  live?.close()
  live = undefined
  clearProgress()
  clearFileList()
  picker.clear()
  newFolder.close()
  sessionsPanel.clear()
  // Nothing is offered for the old session any more, even if a listing still in flight answers.
  accessKnown = false
  session = watch.session
  renderSession(session, loginUrl())
}

followSessionChanges(watch, {
  loginUrl,
  leaveSignedIn,
  showGranted: () => {
    // A consent in another tab: what this page offers follows.
    session = watch.session
    renderSession(session, loginUrl())
    // Only when it changes what the page offers: a consent in a popup here has shown it already, and
    // a list shown again would drop a share link just made.
    checkAccess().then(() => {
      if (JSON.stringify({ upload: access.of('upload'), manage: access.of('manage'), share: access.of('share') }) !== renderedAccess) renderAccess()
    }, () => undefined)
  }
})

start().catch((error: unknown) => { showFailure(error, { doing: 'page start', loginUrl: loginUrl() }) })
