// The upload panel's lists: the files chosen so far, and one progress row per file while it
// travels to the media service. What was stored shows in the folder's file list (file-list.ts).
import { byId, createElement } from './dom.js'
import { formatBytes, percent } from './format.js'

export function renderChosenFiles (files: readonly File[]): void {
  byId('chosen-files', HTMLUListElement).replaceChildren(...files.map((file) => createElement('li', {
    className: 'chosen__file',
    attributes: { 'data-testid': 'chosen-file', 'data-file-name': file.name }
  }, [
    createElement('span', { className: 'chosen__name', text: file.name }),
    createElement('span', { className: 'chosen__size', text: formatBytes(file.size) })
  ])))
}

export function uploadButtonLabel (count: number): string {
  return count === 0 ? 'Upload' : count === 1 ? 'Upload 1 file' : `Upload ${count} files`
}

export interface ProgressRow {
  progress: (loaded: number, total: number) => void
  succeed: () => void
  fail: (message: string) => void
}

export function clearProgress (): void {
  byId('progress-list', HTMLOListElement).replaceChildren()
}

/** Adds a row with a <progress> bar (value 0–100, mirrored in data-progress) for one file. */
export function addProgressRow (file: File): ProgressRow {
  const bar = createElement('progress', {
    className: 'upload__bar',
    attributes: { max: '100', value: '0', 'data-progress': '0', 'data-testid': 'upload-progress', 'aria-label': `Upload of ${file.name}` }
  })
  const status = createElement('span', { className: 'upload__status', text: 'Waiting…', attributes: { 'data-testid': 'upload-status' } })
  const error = createElement('p', { className: 'upload__error' })
  error.hidden = true
  const row = createElement('li', {
    className: 'upload',
    attributes: { 'data-testid': 'upload-item', 'data-file-name': file.name, 'data-state': 'uploading' }
  }, [
    createElement('div', { className: 'upload__head' }, [
      createElement('span', { className: 'upload__name', text: file.name }),
      createElement('span', { className: 'upload__size', text: formatBytes(file.size) }),
      status
    ]),
    bar,
    error
  ])
  byId('progress-list', HTMLOListElement).append(row)

  const show = (value: number): void => {
    bar.value = value
    bar.dataset.progress = String(value)
  }
  return {
    progress: (loaded, total) => {
      const value = percent(loaded, total)
      show(value)
      status.textContent = `${value} %`
    },
    succeed: () => {
      show(100)
      row.dataset.state = 'done'
      status.textContent = 'Uploaded'
    },
    fail: (message) => {
      row.dataset.state = 'failed'
      status.textContent = 'Failed'
      error.textContent = message
      error.hidden = false
    }
  }
}
