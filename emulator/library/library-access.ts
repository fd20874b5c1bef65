// Who calls and what they may reach: every library call authenticates, needs its scope, and
// finds only the caller's own folders and files. A malformed id is a 404 like an unknown or
// another user's one, and only after authentication, so nothing can be probed.
import type { FastifyRequest } from 'fastify'
import { authenticate, requireScope, type Caller } from '../api/authenticate.js'
import type { EmulatorContext } from '../context.js'
import { fieldsOf } from '../http/body-parsers.js'
import { EmulatorError } from '../http/emulator-error.js'
import { numericId } from '../http/field-readers.js'
import type { StoredFile } from '../upload/upload-store.js'
import { folderNotFound, type Folder } from './folder-tree.js'

export type FolderRequest = FastifyRequest<{ Params: { folder_id: string } }>
export type FileRequest = FastifyRequest<{ Params: { file_id: string } }>

export function fileNotFound (fileId: number | string): EmulatorError {
  return new EmulatorError(404, 'file_not_found', `There is no file ${fileId}.`, { userMessage: 'This file does not exist (any more).' })
}

/** The caller, who must hold the scope; a private_token body field counts as in the upload calls. */
export function callerWithScope (context: EmulatorContext, request: FastifyRequest, scope: string): Caller {
  const caller = authenticate(context, request, fieldsOf(request).private_token)
  requireScope(caller, scope)
  return caller
}

function ownFolder (context: EmulatorContext, caller: Caller, idText: string): Folder {
  const folder = numericId.test(idText) ? context.folders.folder(caller.user.name, Number(idText)) : undefined
  if (folder === undefined) throw folderNotFound(idText)
  return folder
}

/** The caller's file with this id: the text from a path, or a number already read from a body. */
export function ownFile (context: EmulatorContext, caller: Caller, id: string | number): StoredFile {
  const file = typeof id === 'number' ? context.uploads.file(id) : numericId.test(id) ? context.uploads.file(Number(id)) : undefined
  if (file === undefined || file.userName !== caller.user.name) throw fileNotFound(id)
  return file
}

/** The caller's file named by the path's :file_id, once the caller is known to hold the scope. */
export function requestedFile (context: EmulatorContext, request: FileRequest, scope: string): StoredFile {
  return ownFile(context, callerWithScope(context, request, scope), request.params.file_id)
}

/** The caller's folder named by the path's :folder_id, once the caller is known to hold the scope. */
export function requestedFolder (context: EmulatorContext, request: FolderRequest, scope: string): Folder {
  return ownFolder(context, callerWithScope(context, request, scope), request.params.folder_id)
}
