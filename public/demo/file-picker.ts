// Choosing files: the file input (through its "Choose files" label, so it stays a real, keyboard
// reachable control) and the drag-and-drop zone both add to one list. Dropping a file anywhere
// else on the page is swallowed, or the browser would navigate away to show the file.
import { byId } from './dom.js'
import { renderChosenFiles } from './upload-view.js'

export interface FilePicker {
  files: () => File[]
  clear: () => void
  setDisabled: (disabled: boolean) => void
}

export function createFilePicker (onChange: (files: File[]) => void): FilePicker {
  const input = byId('file-input', HTMLInputElement)
  const zone = byId('drop-zone', HTMLDivElement)
  let chosen: File[] = []
  let disabled = false

  const update = (files: File[]): void => {
    chosen = files
    renderChosenFiles(chosen)
    onChange(chosen)
  }
  const add = (list: FileList | null): void => {
    if (disabled || list === null || list.length === 0) return
    const known = new Set(chosen.map(fileKey))
    update([...chosen, ...[...list].filter((file) => !known.has(fileKey(file)))])
  }

  input.addEventListener('change', () => {
    add(input.files)
    // Cleared so choosing the same file again after "Clear" still fires change.
    input.value = ''
  })
  zone.addEventListener('click', (event) => {
    if (!disabled && event.target === zone) input.click()
  })
  zone.addEventListener('dragover', (event) => {
    event.preventDefault()
    if (event.dataTransfer !== null) event.dataTransfer.dropEffect = disabled ? 'none' : 'copy'
    zone.classList.toggle('is-dragging', !disabled)
  })
  zone.addEventListener('dragleave', (event) => {
    if (!(event.relatedTarget instanceof Node) || !zone.contains(event.relatedTarget)) zone.classList.remove('is-dragging')
  })
  zone.addEventListener('drop', (event) => {
    event.preventDefault()
    zone.classList.remove('is-dragging')
    add(event.dataTransfer?.files ?? null)
  })
  for (const type of ['dragover', 'drop'] as const) {
    window.addEventListener(type, (event) => { event.preventDefault() })
  }

  return {
    files: () => [...chosen],
    clear: () => { update([]) },
    setDisabled: (value) => {
      disabled = value
      input.disabled = value
      zone.classList.toggle('is-disabled', value)
    }
  }
}

function fileKey (file: File): string {
  return `${file.name}\u0000${file.size}\u0000${file.lastModified}`
}
