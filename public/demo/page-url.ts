// The page's own address carries the open folder (?folder=7), so a reload, a bookmark, the back
// button and a round trip through sign-in or consent all come back to the same folder.
import { readId } from './ids.js'

/** The folder named in the address; home (0) when none or nonsense. */
export function folderFromUrl (): number {
  return readId(new URL(window.location.href).searchParams.get('folder')) ?? 0
}

export function showFolderInUrl (folderId: number, mode: 'push' | 'replace'): void {
  const url = new URL(window.location.href)
  if (folderId === 0) url.searchParams.delete('folder')
  else url.searchParams.set('folder', String(folderId))
  const next = `${url.pathname}${url.search}${url.hash}`
  if (next === `${window.location.pathname}${window.location.search}${window.location.hash}`) return
  if (mode === 'push') window.history.pushState({ folder: folderId }, '', next)
  else window.history.replaceState({ folder: folderId }, '', next)
}

/** Path and query of this page: where sign-in and consent come back to. */
export function pagePath (): string {
  return `${window.location.pathname}${window.location.search}`
}
