// Read-only views of what was uploaded: folders (0 is the user's home) and files. Folders exist
// implicitly once something was registered for or uploaded into them; there is no folder tree
// beyond home and its direct children.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { notFound } from '../http/emulator-error.js'
import { sendJson } from '../http/replies.js'
import { fileEntry } from '../upload/file-views.js'
import type { StoredFile } from '../upload/upload-store.js'
import { authenticate, requireScope, type Caller } from './authenticate.js'

const numericId = /^\d{1,15}$/

type FolderRequest = FastifyRequest<{ Params: { folder_id: string } }>
type FileRequest = FastifyRequest<{ Params: { file_id: string } }>

function folderView (folderId: number, files: StoredFile[]): Record<string, unknown> {
  return {
    folder_id: folderId,
    name: folderId === 0 ? 'Home' : `Folder ${folderId}`,
    parent_id: folderId === 0 ? null : 0,
    file_count: files.filter((file) => file.folderId === folderId).length
  }
}

export function libraryRoutes (app: FastifyInstance, context: EmulatorContext): void {
  const ownFiles = (caller: Caller): StoredFile[] => context.uploads.files().filter((file) => file.userName === caller.user.name)

  // A malformed id is a 404 like an unknown one, and only after authentication.
  const ownFolder = (request: FolderRequest): { caller: Caller, folderId: number } => {
    const caller = authenticate(context, request)
    requireScope(caller, 'basic')
    if (!numericId.test(request.params.folder_id)) throw notFound(`There is no folder ${request.params.folder_id}.`)
    const folderId = Number(request.params.folder_id)
    if (!context.uploads.foldersOf(caller.user.name).has(folderId)) throw notFound(`There is no folder ${folderId}.`)
    return { caller, folderId }
  }

  const ownFile = (request: FileRequest, scope: string): StoredFile => {
    const caller = authenticate(context, request)
    requireScope(caller, scope)
    const file = numericId.test(request.params.file_id) ? context.uploads.file(Number(request.params.file_id)) : undefined
    if (file === undefined || file.userName !== caller.user.name) throw notFound('There is no such file.')
    return file
  }

  app.get<{ Params: { folder_id: string } }>('/api/folders/:folder_id', async (request, reply) => {
    const { caller, folderId } = ownFolder(request)
    return sendJson(reply, 200, folderView(folderId, ownFiles(caller)))
  })

  app.get<{ Params: { folder_id: string } }>('/api/folders/:folder_id/contents', async (request, reply) => {
    const { caller, folderId } = ownFolder(request)
    const files = ownFiles(caller)
    const folders = folderId === 0
      ? [...context.uploads.foldersOf(caller.user.name)].filter((id) => id !== 0).sort((a, b) => a - b).map((id) => folderView(id, files))
      : []
    return sendJson(reply, 200, {
      folder_id: folderId,
      folders,
      files: files.filter((file) => file.folderId === folderId).map((file) => fileEntry(context, file))
    })
  })

  app.get<{ Params: { file_id: string } }>('/api/files/:file_id', async (request, reply) => {
    return sendJson(reply, 200, fileEntry(context, ownFile(request, 'basic')))
  })

  app.get<{ Params: { file_id: string } }>('/api/files/:file_id/share', async (request, reply) => {
    const file = ownFile(request, 'share')
    const link = `${context.baseUrl}/share/${file.fileId}`
    return sendJson(reply, 200, { file_id: file.fileId, url: link, embed: `<iframe src="${link}" title="${file.title.replace(/[<>"&]/g, '')}"></iframe>` })
  })
}
