// The relay's allowlist: the media service operations a website may call through media-bff's
// /api/, each with the scope it needs and the query parameters and body fields it may carry.
// Anything not listed here is never relayed. Paths are relative to the tenant's /api/; `:name`
// marks a numeric id, the only variable part a path may have, so no encoding or dot-segment
// trick can reach another upstream path. Operations on one path name its id alike (a folder's is
// folder_id, whether it is read, renamed or given a new folder inside): the router and the
// OpenAPI description know one template per path. Each row also names the operation for generated
// clients (`operationId`) and the shape of what the service answers (src/contract/media.ts), for
// the description; the relay passes the answer on as the service sent it.
import type { TSchema } from 'typebox'
import { Folder, FolderContents, MediaFile, MediaUserInfo, OEmbed, ShareInfo, ShareLink } from '../contract/media.js'

export type RelayMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** What one query parameter or body field may hold. */
export type FieldRule =
  | { kind: 'flag', description: string }
  | { kind: 'text', maxLength: number, required: boolean, description: string }
  | { kind: 'ids', maxItems: number, description: string }
  | { kind: 'expiry', description: string }
  | { kind: 'url', description: string }

export interface RelayOperation {
  /** Names the operation in metrics, logs and the `upstream.endpoint` of errors. */
  name: string
  /** Its name in the OpenAPI description, for generated clients: a verb and a noun, lower camel case. */
  operationId: string
  /** What the service answers, as the description shows it; none: an empty 204, or whatever it says. */
  answer?: TSchema
  method: RelayMethod
  path: string
  scope: string
  /** A risky act: it needs a recent sign-in (RECENT_SIGN_IN). */
  recentSignIn?: true
  summary: string
  query: Readonly<Record<string, FieldRule>>
  body: Readonly<Record<string, FieldRule>>
}

/** A numeric id as the service knows it: a safe integer, in at most 15 digits. */
export const ID_PATTERN = '^\\d{1,15}$'

const none = {}
const folderName: FieldRule = { kind: 'text', maxLength: 255, required: true, description: 'The folder\'s name' }

export const RELAY_OPERATIONS: readonly RelayOperation[] = [
  { name: 'user_info', operationId: 'getUserInfo', answer: MediaUserInfo, method: 'GET', path: 'user/info', scope: 'user.info', summary: 'The signed-in user: id, name, e-mail and the scopes the account is entitled to', query: none, body: none },
  { name: 'folder', operationId: 'getFolder', answer: Folder, method: 'GET', path: 'folders/:folder_id', scope: 'basic', summary: 'A folder (0 is the home folder)', query: none, body: none },
  {
    name: 'folder_contents',
    operationId: 'getFolderContents',
    answer: FolderContents,
    method: 'GET',
    path: 'folders/:folder_id/contents',
    scope: 'basic',
    summary: 'The folders and files in a folder',
    query: {
      folders: { kind: 'flag', description: 'List the subfolders (default true)' },
      files: { kind: 'flag', description: 'List the files (default true)' }
    },
    body: none
  },
  { name: 'folder_create', operationId: 'createFolder', answer: Folder, method: 'POST', path: 'folders/:folder_id', scope: 'manage', summary: 'Create a folder inside folder_id', query: none, body: { name: folderName } },
  { name: 'folder_rename', operationId: 'renameFolder', answer: Folder, method: 'PUT', path: 'folders/:folder_id', scope: 'manage', summary: 'Rename a folder', query: none, body: { name: folderName } },
  { name: 'folder_delete', operationId: 'deleteFolder', method: 'DELETE', path: 'folders/:folder_id', scope: 'manage', recentSignIn: true, summary: 'Delete a folder', query: none, body: none },
  { name: 'file', operationId: 'getFile', answer: MediaFile, method: 'GET', path: 'files/:file_id', scope: 'basic', summary: 'A file', query: none, body: none },
  {
    name: 'file_update',
    operationId: 'updateFile',
    answer: MediaFile,
    method: 'PUT',
    path: 'files/:file_id',
    scope: 'manage',
    summary: 'Change a file\'s title',
    query: none,
    body: { title: { kind: 'text', maxLength: 255, required: true, description: 'The file\'s new title' } }
  },
  { name: 'file_delete', operationId: 'deleteFile', method: 'DELETE', path: 'files/:file_id', scope: 'manage', recentSignIn: true, summary: 'Delete a file', query: none, body: none },
  { name: 'file_share', operationId: 'getFileShare', answer: ShareInfo, method: 'GET', path: 'files/:file_id/share', scope: 'share', summary: 'How a file is shared: its link and embed code', query: none, body: none },
  { name: 'folder_share', operationId: 'getFolderShare', answer: ShareInfo, method: 'GET', path: 'folders/:folder_id/share', scope: 'share', summary: 'How a folder is shared: its link and embed code', query: none, body: none },
  {
    name: 'share_link',
    operationId: 'createShareLink',
    answer: ShareLink,
    method: 'POST',
    path: 'files/0/share/link',
    scope: 'share',
    recentSignIn: true,
    summary: 'Create a share link for one or more files',
    query: none,
    body: {
      files: { kind: 'ids', maxItems: 100, description: 'The files to share (form bodies may name the field files[])' },
      download: { kind: 'flag', description: 'Whether the link allows downloading' },
      expires: { kind: 'expiry', description: 'When the link expires: Unix time in seconds, or YYYY-MM-DD' }
    }
  },
  {
    name: 'oembed',
    operationId: 'getOEmbed',
    answer: OEmbed,
    method: 'GET',
    path: 'oembed',
    scope: 'basic',
    summary: 'oEmbed description of a shared file, for embedding',
    query: { url: { kind: 'url', description: 'The share URL to describe (http or https)' } },
    body: none
  }
]

/** The path's parameter names, in order: 'folders/:folder_id/contents' gives ['folder_id']. */
export function pathParameters (path: string): string[] {
  return path.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1))
}
