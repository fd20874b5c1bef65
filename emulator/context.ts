// Everything the route handlers share: settings (some changeable at run time), the origins,
// and the in-memory state. One context per running emulator, so emulators in one process never
// see each other's tokens.
import type { EmulatorCounters } from './counters.js'
import type { FaultTable } from './faults.js'
import type { FixtureUser } from './fixture-users.js'
import type { LibraryVersions } from './library/library-versions.js'
import type { FolderTree } from './library/folder-tree.js'
import type { EmulatorSettings } from './options.js'
import type { AuthorizationCodeStore } from './oauth/authorization-codes.js'
import type { TokenStore } from './oauth/token-store.js'
import type { ReceivedLog } from './received-requests.js'
import type { FileProcessing } from './upload/file-processing.js'
import type { UploadStore } from './upload/upload-store.js'
import type { Webhooks } from './webhooks/webhooks.js'

export interface EmulatorContext {
  settings: EmulatorSettings
  /** False until both servers listen and the origins below are known. */
  listening: boolean
  apiOrigin: string
  /** The tenant base URL; the API is at baseUrl + '/api'. */
  baseUrl: string
  uploadOrigin: string
  dataDir: string
  counters: EmulatorCounters
  faults: FaultTable
  tokens: TokenStore
  codes: AuthorizationCodeStore
  uploads: UploadStore
  /** Stored files' way from processing to ready (upload/file-processing.ts). */
  processing: FileProcessing
  folders: FolderTree
  /** Each user's library version and time of last change: the library's validators. */
  library: LibraryVersions
  /** The last requests to /api/ (received-requests.ts). */
  received: ReceivedLog
  /** Outbound webhooks: the accounts' endpoints, the sender and its log (webhooks/). */
  webhooks: Webhooks
}

export function findUser (context: EmulatorContext, name: string): FixtureUser | undefined {
  return context.settings.users.find((user) => user.name === name)
}

export function userNames (context: EmulatorContext): string[] {
  return context.settings.users.map((user) => user.name)
}
