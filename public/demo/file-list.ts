// The open folder's files: title (a link to the file when the service gives an http(s) URL),
// file name, size and type, where the service is with it (processing, then ready: the live
// channel flips it without a reload, live-updates.ts), and per file a "Share link" action. With `share` granted it makes
// the link; when the account may still grant it, it is a link to the consent page that comes
// back and makes the link; without the right there is no action at all.
import { safeHttpUrl, type MediaFile } from '../client/media-bff-client.js'
import type { Access } from '../client/media-bff-client.js'
import { byId, createElement } from './dom.js'
import { extensionOf, formatBytes } from './format.js'
import { readId } from './ids.js'

export interface ListedFile {
  id: number
  title: string
  /** Where the share link's box goes. */
  shareBox: HTMLElement
  /** The "Share link" button; undefined unless `share` is granted. */
  shareButton: HTMLButtonElement | undefined
}

export interface FileListOptions {
  share: Access
  /** The consent page asking for `share`, coming back to this page. */
  shareConsentUrl: string
  /** Files just uploaded, marked as new. */
  fresh: ReadonlySet<number>
  onShare: (file: ListedFile) => void
  /** Just before the browser leaves for the consent page. */
  /** The share link's consent link was clicked (the page may ask in a popup instead: `event`). */
  onAskShare: (fileId: number, event: MouseEvent) => void
}

/** Renders the files; returns them by id, for the share link asked for before a consent trip. */
export function renderFileList (files: readonly MediaFile[], options: FileListOptions): Map<number, ListedFile> {
  const listed = new Map<number, ListedFile>()
  const rows = files.flatMap((file) => {
    const id = readId(file.file_id)
    if (id === undefined) return []
    const filename = typeof file.filename === 'string' ? file.filename : ''
    const title = typeof file.title === 'string' && file.title.trim() !== '' ? file.title : filename || 'Untitled'
    const shareBox = createElement('div', { className: 'share', attributes: { 'data-testid': 'share-box' } })
    shareBox.hidden = true
    const entry: ListedFile = { id, title, shareBox, shareButton: undefined }
    const action = shareAction(entry, options)
    listed.set(id, entry)
    const meta = [
      filename === title ? '' : filename,
      typeof file.size === 'number' ? formatBytes(file.size) : '',
      typeof file.mime_type === 'string' ? file.mime_type : ''
    ].filter((part) => part !== '')
    const href = safeHttpUrl(file.urls?.file)
    const titleElement = href === undefined
      ? createElement('span', { text: title })
      : createElement('a', { text: title, attributes: { href, target: '_blank', rel: 'noopener noreferrer' } })
    const row = createElement('li', {
      className: 'file',
      attributes: { 'data-testid': 'folder-file', 'data-file-id': String(id), 'data-title': title, 'data-filename': filename }
    }, [
      createElement('span', { className: 'file__badge', text: extensionOf(filename), attributes: { 'aria-hidden': 'true' } }),
      createElement('div', { className: 'file__body' }, [
        createElement('p', { className: 'file__title' }, [
          titleElement,
          ...(options.fresh.has(id) ? [createElement('span', { className: 'file__new', text: 'new' })] : [])
        ]),
        createElement('p', { className: 'file__meta', attributes: { 'data-testid': 'file-meta' }, text: meta.join(' · ') })
      ]),
      ...statusBadge(file.status),
      ...(action === undefined ? [] : [createElement('div', { className: 'file__actions' }, [action])]),
      shareBox
    ])
    if (options.fresh.has(id)) row.dataset.fresh = 'true'
    if (typeof file.status === 'string') row.dataset.status = file.status
    return [row]
  })
  byId('file-list', HTMLUListElement).replaceChildren(...rows)
  const status = byId('files-status', HTMLParagraphElement)
  status.textContent = rows.length === 0 ? 'No files in this folder yet.' : ''
  status.hidden = rows.length > 0
  return listed
}

/** Processing until the service can play and embed it; nothing when the service does not say. */
function statusBadge (status: unknown): HTMLElement[] {
  if (typeof status !== 'string') return []
  const text = status === 'processing' ? 'Processing…' : status === 'ready' ? 'Ready' : status
  return [createElement('span', { className: `file__status file__status--${status === 'ready' ? 'ready' : 'other'}`, text, attributes: { 'data-testid': 'file-status' } })]
}

function shareAction (entry: ListedFile, options: FileListOptions): HTMLElement | undefined {
  const label = `Share link for ${entry.title}`
  if (options.share === 'granted') {
    const button = createElement('button', {
      className: 'button button--secondary button--small',
      text: 'Share link',
      attributes: { type: 'button', 'data-testid': 'share-file', 'aria-label': label }
    })
    button.addEventListener('click', () => { options.onShare(entry) })
    entry.shareButton = button
    return button
  }
  if (options.share === 'denied') return undefined
  const link = createElement('a', {
    className: 'button button--secondary button--small',
    text: 'Share link',
    attributes: { href: options.shareConsentUrl, 'data-testid': 'share-file', 'data-grant': 'share', 'aria-label': `${label} (asks for the share permission first)` }
  })
  link.addEventListener('click', (event) => { options.onAskShare(entry.id, event) })
  return link
}

export function clearFileList (): void {
  byId('file-list', HTMLUListElement).replaceChildren()
}
