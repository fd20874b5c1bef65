// Whose files media-bff saw finished: at finish the service names the files an upload stored, and
// this remembers, per tenant, the sign-in that finished it (and its person, when the user id is
// known). A webhook about a file is followed only for files found here
// (src/webhooks/webhook-hints.ts): media-bff announces nothing about a file it never saw
// uploaded through it. What is read back is checked like any stored input.
import type { KeyValueStore } from '../store/key-value-store.js'
import { jsonRecord } from '../media/json-record.js'

/** As long as processing may plausibly take, and then some. */
const REMEMBER_MS = 24 * 3_600_000
/** One finish stores at most this many files here; the rest get no live updates. */
const MAX_FILES_PER_FINISH = 1_000

export interface FileOwner {
  /** The sign-in that finished the upload: its session's handle, store id and grant. */
  handle: string
  sid: string
  grantId: string
  /** The person, when known: every one of their sessions hears of the file. */
  userId?: string
}

export function createUploadedFiles (store: KeyValueStore) {
  const keyOf = (tenant: string, fileId: number): string => `uploaded-file:${tenant}:${fileId}`
  return {
    async remember (tenant: string, owner: FileOwner, fileIds: readonly number[]): Promise<void> {
      const value = JSON.stringify(owner)
      await Promise.all(fileIds.slice(0, MAX_FILES_PER_FINISH).map(async (fileId) => { await store.set(keyOf(tenant, fileId), value, REMEMBER_MS) }))
    },
    /** Who finished it, when media-bff saw it finished. */
    async ownerOf (tenant: string, fileId: number): Promise<FileOwner | undefined> {
      return readOwner(await store.get(keyOf(tenant, fileId)))
    }
  }
}

export type UploadedFiles = ReturnType<typeof createUploadedFiles>

function readOwner (text: string | undefined): FileOwner | undefined {
  if (text === undefined) return undefined
  let record: Record<string, unknown> | undefined
  try {
    record = jsonRecord(JSON.parse(text))
  } catch {
    return undefined
  }
  const { handle, sid, grantId, userId } = record ?? {}
  if (typeof handle !== 'string' || typeof sid !== 'string' || typeof grantId !== 'string') return undefined
  return typeof userId === 'string' ? { handle, sid, grantId, userId } : { handle, sid, grantId }
}
