// The folder picker's behaviour: which folder is open (the upload target), going into a
// subfolder or back up through the breadcrumbs, and opening a folder by id (page start, back and
// forward) by walking its parents up to home. Answers that arrive after a newer navigation are
// dropped. The open folder is kept in the address (page-url.ts).
import { MediaBffError, type FolderContents, type MediaBffClient } from '../client/media-bff-client.js'
import { readId } from './ids.js'
import { folderFromUrl, showFolderInUrl } from './page-url.js'
import { folderName, renderBreadcrumbs, renderFolderList, setFolderPickerDisabled, setFolderStatus, type Crumb } from './folder-view.js'

/** Deeper trees are shown from the 32nd ancestor down; the walk must end somewhere. */
const MAX_DEPTH = 32
const HOME: Crumb = { id: 0, name: 'Home' }

export interface FolderBrowser {
  /** Opens a folder by id, its path from home read from the service. */
  open: (id: number) => Promise<void>
  /** Goes into a folder inside the open one (one just created, say). */
  enter: (crumb: Crumb) => Promise<void>
  /** Reads the open folder's contents again. */
  refresh: () => Promise<void>
  current: () => Crumb
  setDisabled: (disabled: boolean) => void
}

export interface FolderBrowserOptions {
  bff: MediaBffClient
  /** A folder was opened or read again; its files are in `contents`. */
  onShown: (folder: Crumb, contents: FolderContents) => void
  /** Opening failed; the picker keeps showing the folder it had. */
  onFailed: (error: unknown) => void
  /** The folder asked for no longer exists; home is shown instead. */
  onMissing: (id: number) => void
}

export function createFolderBrowser ({ bff, onShown, onFailed, onMissing }: FolderBrowserOptions): FolderBrowser {
  let chain: Crumb[] = [HOME]
  let sequence = 0
  let disabled = false

  const current = (): Crumb => chain[chain.length - 1] ?? HOME
  /** For navigations started by a click: their failures are reported, never left unhandled. */
  const go = (navigation: Promise<void>): void => { navigation.catch(onFailed) }

  const show = async (next: Crumb[], url: 'push' | 'replace' | 'keep'): Promise<void> => {
    const target = next[next.length - 1] ?? HOME
    const mine = ++sequence
    setFolderStatus(`Opening ${target.name}…`)
    try {
      const contents = await bff.folders.contents(target.id)
      if (mine !== sequence) return
      chain = next
      if (url !== 'keep') showFolderInUrl(target.id, url)
      renderBreadcrumbs(chain, (index) => { go(show(chain.slice(0, index + 1), 'push')) })
      const count = renderFolderList(contents.folders, (crumb) => { go(show([...chain, crumb], 'push')) })
      setFolderStatus(count === 0 ? `No folders inside ${target.name}.` : '')
      setFolderPickerDisabled(disabled)
      onShown(target, contents)
    } catch (error) {
      if (mine === sequence) await failed(error, target.id)
    }
  }

  /** A folder that is gone (or never was) falls back to home; any other failure is reported. */
  const failed = async (error: unknown, id: number): Promise<void> => {
    if (error instanceof MediaBffError && error.code === 'not_found' && id !== 0) {
      onMissing(id)
      await show([HOME], 'replace')
      return
    }
    setFolderStatus('The folders could not be read.')
    onFailed(error)
  }

  /** The path from home to `id`, from each folder's parent_id. */
  const pathTo = async (id: number): Promise<Crumb[]> => {
    const path: Crumb[] = []
    let next: number | undefined = id
    while (next !== undefined && next !== 0 && path.length < MAX_DEPTH) {
      const folder = await bff.folders.get(next)
      path.unshift({ id: next, name: folderName(folder, next) })
      const parent = readId(folder.parent_id)
      next = parent === undefined || path.some((crumb) => crumb.id === parent) ? undefined : parent
    }
    return [HOME, ...path]
  }

  window.addEventListener('popstate', () => {
    const wanted = folderFromUrl()
    const index = chain.findIndex((crumb) => crumb.id === wanted)
    go(index >= 0 ? show(chain.slice(0, index + 1), 'keep') : openById(wanted, 'keep'))
  })

  const openById = async (id: number, url: 'replace' | 'keep'): Promise<void> => {
    if (id === 0) {
      await show([HOME], url)
      return
    }
    const mine = ++sequence
    setFolderStatus('Opening the folder…')
    let path: Crumb[]
    try {
      path = await pathTo(id)
    } catch (error) {
      if (mine === sequence) await failed(error, id)
      return
    }
    if (mine === sequence) await show(path, url)
  }

  return {
    open: async (id) => { await openById(id, 'replace') },
    enter: async (crumb) => { await show([...chain, crumb], 'push') },
    refresh: async () => { await show(chain, 'keep') },
    current,
    setDisabled: (value) => {
      disabled = value
      setFolderPickerDisabled(value)
    }
  }
}
