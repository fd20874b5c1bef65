// "New folder": a small form under the breadcrumbs that creates a folder inside the open one
// and then opens it, so the next upload goes there. The name is checked here first (1 to 255
// characters, no control characters, which media-bff refuses, and no "/", which reads as a path)
// so a typo gets a field message, not a refusal.
import type { MediaBffClient } from '../client/media-bff-client.js'
import { byId } from './dom.js'
import type { FolderBrowser } from './folder-browser.js'
import { readId } from './ids.js'
import { hideNotice, showNotice } from './notice.js'

export interface NewFolderForm {
  open: () => void
  close: () => void
  setDisabled: (disabled: boolean) => void
}

export function setUpNewFolderForm (bff: MediaBffClient, browser: FolderBrowser, onFailure: (error: unknown) => void): NewFolderForm {
  const toggle = byId('new-folder', HTMLButtonElement)
  const form = byId('new-folder-form', HTMLFormElement)
  const input = byId('new-folder-name', HTMLInputElement)
  const create = byId('create-folder', HTMLButtonElement)
  const cancel = byId('cancel-new-folder', HTMLButtonElement)
  let working = false
  let disabled = false

  const sync = (): void => {
    toggle.disabled = disabled || working
    input.disabled = disabled || working
    create.disabled = disabled || working
    create.textContent = working ? 'Creating…' : 'Create folder'
    form.setAttribute('aria-busy', String(working))
  }
  const open = (): void => {
    form.hidden = false
    toggle.setAttribute('aria-expanded', 'true')
    input.focus()
  }
  const close = (): void => {
    form.hidden = true
    toggle.setAttribute('aria-expanded', 'false')
    input.value = ''
    input.removeAttribute('aria-invalid')
  }
  const invalid = (text: string): void => {
    input.setAttribute('aria-invalid', 'true')
    showNotice({ kind: 'error', code: 'invalid_folder_name', text })
    input.focus()
  }

  toggle.setAttribute('aria-controls', 'new-folder-form')
  toggle.setAttribute('aria-expanded', 'false')
  toggle.addEventListener('click', () => { if (form.hidden) open(); else close() })
  cancel.addEventListener('click', close)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (working || disabled) return
    const name = input.value.trim()
    if (name === '' || name.length > 255 || /[\p{Cc}/]/u.test(name)) {
      invalid('A folder name needs 1 to 255 characters, without "/", line breaks or tabs.')
      return
    }
    const parent = browser.current()
    working = true
    sync()
    bff.folders.create(parent.id, name)
      .then(async (folder) => {
        close()
        const id = readId(folder.folder_id)
        const created = typeof folder.name === 'string' && folder.name !== '' ? folder.name : name
        showNotice({ kind: 'success', code: 'folder_created', text: `Created the folder “${created}” in ${parent.name}. Uploads now go there.` })
        // The folder buttons stay usable while the folder is created: if another folder was
        // opened meanwhile, the new one is not inside it, so its path is read from the service.
        if (id === undefined) await browser.refresh()
        else if (browser.current().id === parent.id) await browser.enter({ id, name: created })
        else await browser.open(id)
      })
      .catch((error: unknown) => {
        input.setAttribute('aria-invalid', 'true')
        onFailure(error)
      })
      .finally(() => {
        working = false
        sync()
      })
  })
  input.addEventListener('input', () => {
    if (input.getAttribute('aria-invalid') === 'true') {
      input.removeAttribute('aria-invalid')
      hideNotice()
    }
  })

  return {
    open,
    close,
    setDisabled: (value) => {
      disabled = value
      sync()
    }
  }
}
