// The folder picker's DOM: breadcrumbs from home to the open folder (each ancestor a button),
// and the open folder's subfolders as buttons that enter them. Text only, never markup.
import type { Folder } from '../client/media-bff-client.js'
import { byId, createElement } from './dom.js'
import { readId } from './ids.js'

export interface Crumb {
  id: number
  name: string
}

export function folderName (folder: Folder | undefined, id: number): string {
  const name = typeof folder?.name === 'string' ? folder.name.trim() : ''
  return name !== '' ? name : id === 0 ? 'Home' : `Folder ${id}`
}

export function renderBreadcrumbs (chain: readonly Crumb[], onPick: (index: number) => void): void {
  byId('breadcrumbs', HTMLOListElement).replaceChildren(...chain.map((crumb, index) => {
    const last = index === chain.length - 1
    const label = last
      ? createElement('span', { className: 'crumb crumb--current', text: crumb.name, attributes: { 'aria-current': 'page', 'data-folder-id': String(crumb.id) } })
      : createElement('button', { className: 'crumb', text: crumb.name, attributes: { type: 'button', 'data-folder-id': String(crumb.id) } })
    if (!last) label.addEventListener('click', () => { onPick(index) })
    return createElement('li', { className: 'breadcrumbs__item' }, [label])
  }))
}

/** Subfolders as buttons; entries without a usable id are left out. */
export function renderFolderList (folders: readonly Folder[], onEnter: (crumb: Crumb) => void): number {
  const items = folders.flatMap((folder) => {
    const id = readId(folder.folder_id)
    if (id === undefined) return []
    const crumb = { id, name: folderName(folder, id) }
    const button = createElement('button', {
      className: 'folder',
      attributes: { type: 'button', 'data-testid': 'folder', 'data-folder-id': String(id), 'data-folder-name': crumb.name }
    }, [
      createElement('span', { className: 'folder__icon', attributes: { 'aria-hidden': 'true' } }),
      createElement('span', { className: 'folder__name', text: crumb.name }),
      createElement('span', { className: 'folder__meta', text: counts(folder) })
    ])
    button.addEventListener('click', () => { onEnter(crumb) })
    return [createElement('li', {}, [button])]
  })
  byId('folder-list', HTMLUListElement).replaceChildren(...items)
  return items.length
}

function counts (folder: Folder): string {
  const parts: string[] = []
  if (typeof folder.folder_count === 'number' && folder.folder_count > 0) parts.push(plural(folder.folder_count, 'folder'))
  if (typeof folder.file_count === 'number') parts.push(folder.file_count === 0 ? 'empty' : plural(folder.file_count, 'file'))
  return parts.join(' · ')
}

function plural (count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

export function setFolderStatus (text: string): void {
  const status = byId('folder-status', HTMLParagraphElement)
  status.textContent = text
  status.hidden = text === ''
}

export function setFolderPickerDisabled (disabled: boolean): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('#breadcrumbs button, #folder-list button')) button.disabled = disabled
}
