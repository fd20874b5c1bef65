// The folder calls: read one, list its contents, create a subfolder, rename, delete.
// Home (0) can be neither renamed nor deleted, and only an empty folder can be deleted, as on
// the real service, so clients must handle both refusals.
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { fieldsOf } from '../http/body-parsers.js'
import { EmulatorError, badRequest } from '../http/emulator-error.js'
import { sendJson } from '../http/replies.js'
import { searchParamsOf } from '../http/requests.js'
import { folderEventData } from '../webhooks/webhook-events.js'
import { sendCacheable } from './etag.js'
import { requestedFolder } from './library-access.js'
import { folderName, listingFlag } from './library-fields.js'
import { fileView, folderView } from './library-views.js'

type FolderRoute = { Params: { folder_id: string } }

export function folderRoutes (app: FastifyInstance, context: EmulatorContext): void {
  app.get<FolderRoute>('/api/folders/:folder_id', async (request, reply) => {
    const folder = requestedFolder(context, request, 'basic')
    return sendCacheable(request, reply, folderView(context, folder), context.library.current(folder.userName))
  })

  app.get<FolderRoute>('/api/folders/:folder_id/contents', async (request, reply) => {
    const folder = requestedFolder(context, request, 'basic')
    const query = searchParamsOf(request)
    const withFolders = listingFlag(query, 'folders')
    const withFiles = listingFlag(query, 'files')
    return sendCacheable(request, reply, {
      folder_id: folder.folderId,
      folders: withFolders ? context.folders.children(folder).map((child) => folderView(context, child)) : [],
      files: withFiles ? context.uploads.filesIn(folder.userName, folder.folderId).map((file) => fileView(context, file)) : []
    }, context.library.current(folder.userName))
  })

  // POST /folders/{id} creates a folder inside {id}.
  app.post<FolderRoute>('/api/folders/:folder_id', async (request, reply) => {
    const parent = requestedFolder(context, request, 'manage')
    const created = context.folders.create(parent.userName, parent, folderName(fieldsOf(request)))
    context.library.changed(parent.userName)
    return sendJson(reply, 201, folderView(context, created))
  })

  app.put<FolderRoute>('/api/folders/:folder_id', async (request, reply) => {
    const folder = requestedFolder(context, request, 'manage')
    if (folder.parentId === null) throw badRequest('The home folder cannot be renamed.')
    context.folders.rename(folder, folderName(fieldsOf(request)))
    context.library.changed(folder.userName)
    return sendJson(reply, 200, folderView(context, folder))
  })

  app.delete<FolderRoute>('/api/folders/:folder_id', async (request, reply) => {
    const folder = requestedFolder(context, request, 'manage')
    if (folder.parentId === null) throw badRequest('The home folder cannot be deleted.')
    if (folder.children.size > 0 || context.uploads.countIn(folder.userName, folder.folderId) > 0) {
      throw new EmulatorError(409, 'folder_not_empty', `Folder ${folder.folderId} still holds folders or files; delete or move them first.`, {
        userMessage: 'Only an empty folder can be deleted.'
      })
    }
    context.folders.remove(folder)
    context.library.changed(folder.userName)
    context.webhooks.emit(folder.userName, 'folder_trash', folderEventData(folder))
    return sendJson(reply, 200, { status: 'success' })
  })
}
