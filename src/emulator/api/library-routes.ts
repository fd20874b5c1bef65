// Read-only views of what was uploaded: folders (0 is the user's home) and files. Folders exist
// implicitly once something was registered for or uploaded into them; there is no folder tree
// beyond home and its direct children.
import type { EmulatorContext } from '../context.js'
import { notFound } from '../http/emulator-error.js'
import { sendJson } from '../http/responses.js'
import type { Route, RouteContext } from '../http/router.js'
import { fileEntry } from '../upload/file-views.js'
import type { StoredFile } from '../upload/upload-store.js'
import { authenticate, requireScope, type Caller } from './authenticate.js'

function idParam (route: RouteContext, name: string): number {
  const text = route.params[name] ?? ''
  if (!/^\d{1,15}$/.test(text)) throw notFound(`There is no ${name.replace('_id', '')} ${text}.`)
  return Number(text)
}

function folderView (folderId: number, files: StoredFile[]): Record<string, unknown> {
  return {
    folder_id: folderId,
    name: folderId === 0 ? 'Home' : `Folder ${folderId}`,
    parent_id: folderId === 0 ? null : 0,
    file_count: files.filter((file) => file.folderId === folderId).length
  }
}

export function libraryRoutes (context: EmulatorContext): Route[] {
  const ownFiles = (caller: Caller): StoredFile[] => context.uploads.files().filter((file) => file.userName === caller.user.name)

  const ownFolder = (route: RouteContext): { caller: Caller, folderId: number } => {
    const caller = authenticate(context, route.req)
    requireScope(caller, 'basic')
    const folderId = idParam(route, 'folder_id')
    if (!context.uploads.foldersOf(caller.user.name).has(folderId)) throw notFound(`There is no folder ${folderId}.`)
    return { caller, folderId }
  }

  const ownFile = (route: RouteContext, scope: string): StoredFile => {
    const caller = authenticate(context, route.req)
    requireScope(caller, scope)
    const file = context.uploads.file(idParam(route, 'file_id'))
    if (file === undefined || file.userName !== caller.user.name) throw notFound('There is no such file.')
    return file
  }

  return [
    {
      method: 'GET',
      path: '/api/folders/:folder_id',
      handler: (route) => {
        const { caller, folderId } = ownFolder(route)
        sendJson(route.res, 200, folderView(folderId, ownFiles(caller)))
      }
    },
    {
      method: 'GET',
      path: '/api/folders/:folder_id/contents',
      handler: (route) => {
        const { caller, folderId } = ownFolder(route)
        const files = ownFiles(caller)
        const folders = folderId === 0
          ? [...context.uploads.foldersOf(caller.user.name)].filter((id) => id !== 0).sort((a, b) => a - b).map((id) => folderView(id, files))
          : []
        sendJson(route.res, 200, {
          folder_id: folderId,
          folders,
          files: files.filter((file) => file.folderId === folderId).map((file) => fileEntry(context, file))
        })
      }
    },
    {
      method: 'GET',
      path: '/api/files/:file_id',
      handler: (route) => { sendJson(route.res, 200, fileEntry(context, ownFile(route, 'basic'))) }
    },
    {
      method: 'GET',
      path: '/api/files/:file_id/share',
      handler: (route) => {
        const file = ownFile(route, 'share')
        const link = `${context.baseUrl}/share/${file.fileId}`
        sendJson(route.res, 200, { file_id: file.fileId, url: link, embed: `<iframe src="${link}" title="${file.title.replace(/[<>"&]/g, '')}"></iframe>` })
      }
    }
  ]
}
