// The JSON shapes of folders and files in the library answers. Links are absolute URLs on the
// tenant API, as the real service gives them; a BFF relaying these answers rewrites them.
import type { EmulatorContext } from '../context.js'
import { fileEntry } from '../upload/file-views.js'
import type { StoredFile } from '../upload/upload-store.js'
import type { Folder } from './folder-tree.js'

export function folderView (context: EmulatorContext, folder: Folder): Record<string, unknown> {
  const self = `${context.baseUrl}/api/folders/${folder.folderId}`
  return {
    folder_id: folder.folderId,
    name: folder.name,
    parent_id: folder.parentId,
    created: Math.floor(folder.createdAt / 1000),
    folder_count: folder.children.size,
    file_count: context.uploads.countIn(folder.userName, folder.folderId),
    api: { self, contents: `${self}/contents`, share: `${self}/share` }
  }
}

/** The file entry of upload and finish answers, plus its API links. */
export function fileView (context: EmulatorContext, file: StoredFile): Record<string, unknown> {
  const self = `${context.baseUrl}/api/files/${file.fileId}`
  return { ...fileEntry(context, file), api: { self, share: `${self}/share` } }
}

/** An embed code for a share link; the title is stripped of what could break out of the attribute. */
export function embedCode (url: string, title: string): string {
  return `<iframe src="${url}" width="640" height="360" title="${title.replace(/[<>"&]/g, '')}" allowfullscreen></iframe>`
}
