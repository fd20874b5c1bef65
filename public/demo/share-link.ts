// Making a share link for one file and handing it over: the link in a read-only field (so it
// can also be selected by hand), a "Copy link" button using the asynchronous clipboard, and an
// "Open" link. The link comes from the service, so it is shown only if it is http(s).
import { MediaBffError, safeHttpUrl, type MediaBffClient } from '../client/media-bff-client.js'
import { createElement } from './dom.js'
import type { ListedFile } from './file-list.js'

export async function makeShareLink (bff: MediaBffClient, file: ListedFile): Promise<void> {
  const button = file.shareButton
  if (button !== undefined) {
    button.disabled = true
    button.textContent = 'Making link…'
  }
  try {
    const answer = await bff.files.shareLink([file.id])
    const link = safeHttpUrl(answer.link)
    if (link === undefined) throw new MediaBffError(200, 'bad_response', 'The media service answered without a link this page can show.')
    showLink(file, link)
  } finally {
    if (button !== undefined) {
      button.disabled = false
      button.textContent = 'Share link'
    }
  }
}

function showLink (file: ListedFile, link: string): void {
  const fieldId = `share-link-${file.id}`
  const input = createElement('input', {
    className: 'share__url',
    attributes: { id: fieldId, type: 'text', readonly: '', value: link, 'data-testid': 'share-link-url' }
  })
  const status = createElement('span', { className: 'share__status', attributes: { 'data-testid': 'copy-status', role: 'status', 'aria-live': 'polite' } })
  const copy = createElement('button', { className: 'button button--primary button--small', text: 'Copy link', attributes: { type: 'button', 'data-testid': 'copy-share-link' } })
  copy.addEventListener('click', () => { copyLink(link, input, copy, status).catch(() => undefined) })
  input.addEventListener('focus', () => { input.select() })
  file.shareBox.replaceChildren(
    createElement('label', { className: 'share__label', text: `Share link for ${file.title}`, attributes: { for: fieldId } }),
    createElement('div', { className: 'share__row' }, [
      input,
      copy,
      createElement('a', { className: 'button button--ghost button--small', text: 'Open', attributes: { href: link, target: '_blank', rel: 'noopener noreferrer' } })
    ]),
    status
  )
  file.shareBox.hidden = false
}

async function copyLink (link: string, input: HTMLInputElement, button: HTMLButtonElement, status: HTMLElement): Promise<void> {
  try {
    // Throws where the clipboard is missing (plain http off localhost) or the browser refuses.
    await navigator.clipboard.writeText(link)
    button.textContent = 'Copied'
    button.dataset.copied = 'true'
    status.textContent = 'The link is on your clipboard.'
  } catch {
    input.focus()
    input.select()
    delete button.dataset.copied
    status.textContent = 'This browser did not allow copying: the link is selected, press Ctrl+C (⌘C on a Mac).'
  }
}
