// Upload registrations and stored files, in memory, with the file contents in the data dir
// (`incoming/` while a file streams in, `files/` once it is accepted).
import { mkdir, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createExpiringMap, type ExpiringMapWork } from '../expiring-map.js'
import { ulid } from '../ulid.js'
import type { UploadOptions } from './upload-options.js'

export interface Registration {
  ulid: string
  userName: string
  folderId: number
  title: string | undefined
  options: UploadOptions
  createdAt: number
  /** Milliseconds; the URL's `expires` is this rounded up to seconds. */
  expiresAt: number
  finished: boolean
  fileIds: number[]
  /** Files and bytes of uploads still streaming, so concurrent uploads respect the limits. */
  reservedFiles: number
  reservedBytes: number
  committedBytes: number
}

/**
 * Where the service's work on a file stands: after an upload it transcodes the file, and until
 * then the file cannot be played or embedded (upload/file-processing.ts moves it on).
 */
export type FileStatus = 'processing' | 'ready'

export interface StoredFile {
  fileId: number
  /** The registration it came through; null for the single-call upload. */
  ulid: string | null
  userName: string
  folderId: number
  title: string
  filename: string
  mimeType: string
  size: number
  sha256: string
  path: string
  uploadedAt: number
  status: FileStatus
}

export interface ReceivedFile {
  tempPath: string
  filename: string
  mimeType: string
  size: number
  sha256: string
}

export interface UploadStore {
  incomingDir: string
  register: (fields: { userName: string, folderId: number, title: string | undefined, options: UploadOptions }, ttlSeconds: number) => Registration
  registration: (ulid: string) => Registration | undefined
  /** Moves a received file into the store. */
  accept: (received: ReceivedFile, fields: { ulid: string | null, userName: string, folderId: number, title: string }) => Promise<StoredFile>
  discard: (received: ReceivedFile) => Promise<void>
  files: () => StoredFile[]
  file: (fileId: number) => StoredFile | undefined
  /** A user's files in one folder, in upload (= id) order; costs what the folder holds. */
  filesIn: (userName: string, folderId: number) => StoredFile[]
  countIn: (userName: string, folderId: number) => number
  /** Forgets the file and deletes its contents from disk. */
  remove: (file: StoredFile) => Promise<void>
  /** What forgetting old registrations has cost so far. */
  work: () => ExpiringMapWork
}

/** Registrations are forgotten a day after they expire (finish answers stay repeatable till then). */
const keepExpiredMs = 24 * 3600 * 1000

export async function createUploadStore (dataDir: string, now: () => number = Date.now): Promise<UploadStore> {
  const incomingDir = join(dataDir, 'incoming')
  const filesDir = join(dataDir, 'files')
  await mkdir(incomingDir, { recursive: true })
  await mkdir(filesDir, { recursive: true })
  const registrations = createExpiringMap<string, Registration>({ sweepEveryMs: 60 * 1000, now })
  const files = new Map<number, StoredFile>()
  // Files by owner and folder, so a folder listing never walks every user's files.
  const byFolder = new Map<string, Map<number, StoredFile>>()
  const folderKey = (userName: string, folderId: number): string => `${userName}/${folderId}`
  let nextFileId = 1001
  const forget = (file: StoredFile): void => {
    files.delete(file.fileId)
    const key = folderKey(file.userName, file.folderId)
    const folder = byFolder.get(key)
    folder?.delete(file.fileId)
    if (folder?.size === 0) byFolder.delete(key)
  }

  return {
    incomingDir,
    register (fields, ttlSeconds) {
      const createdAt = now()
      const registration: Registration = {
        ...fields,
        ulid: ulid(createdAt),
        createdAt,
        expiresAt: createdAt + Math.round(ttlSeconds * 1000),
        finished: false,
        fileIds: [],
        reservedFiles: 0,
        reservedBytes: 0,
        committedBytes: 0
      }
      registrations.set(registration.ulid, registration, registration.expiresAt + keepExpiredMs)
      return registration
    },
    registration (key) {
      return registrations.get(key)
    },
    async accept (received, fields) {
      const fileId = nextFileId++
      const path = join(filesDir, String(fileId))
      const stored: StoredFile = {
        fileId,
        ...fields,
        filename: received.filename,
        mimeType: received.mimeType,
        size: received.size,
        sha256: received.sha256,
        path,
        uploadedAt: now(),
        status: 'processing'
      }
      // Indexed before the rename is awaited, so a folder deleted meanwhile is not seen as empty
      // (the caller checked the folder exists just before calling this); taken out again if the
      // rename fails.
      files.set(fileId, stored)
      const key = folderKey(stored.userName, stored.folderId)
      byFolder.set(key, (byFolder.get(key) ?? new Map<number, StoredFile>()).set(fileId, stored))
      try {
        await rename(received.tempPath, path)
      } catch (error) {
        forget(stored)
        throw error
      }
      // Deleted while the rename ran: its contents went nowhere, so remove them now.
      if (files.get(fileId) !== stored) await rm(path, { force: true })
      return stored
    },
    async discard (received) {
      await rm(received.tempPath, { force: true })
    },
    files () {
      return [...files.values()]
    },
    file (fileId) {
      return files.get(fileId)
    },
    filesIn (userName, folderId) {
      return [...byFolder.get(folderKey(userName, folderId))?.values() ?? []]
    },
    countIn (userName, folderId) {
      return byFolder.get(folderKey(userName, folderId))?.size ?? 0
    },
    async remove (file) {
      forget(file)
      await rm(file.path, { force: true })
    },
    work: () => registrations.work()
  }
}
