// Whose files media-bff saw finished: at finish the service names the files an upload stored, and
// this remembers, per tenant, the sign-in that finished it (and its person, when the user id is
// known), and what its pages were last told of the file. A webhook about a file is followed only
// for files found here (src/webhooks/webhook-hints.ts): media-bff announces nothing about a file
// it never saw uploaded through it. And each state of a file is announced once (claimShowing):
// a finish sent twice (the browser module finishes after the service finished by itself), a
// webhook delivered twice or a follow-up done again after a takeover tell the pages nothing new.
// What is read back is checked like any stored input.
import { createHash } from 'node:crypto'
import type { KeyValueStore } from '../store/key-value-store.js'
import { jsonRecord } from '../media/json-record.js'
import type { MediaFileView } from '../media/read-media-file.js'

/** As long as processing may plausibly take, and then some. */
const REMEMBER_MS = 24 * 3_600_000

export interface FileOwner {
  /** The sign-in that finished the upload: its session's handle, store id and grant. */
  handle: string
  sid: string
  grantId: string
  /** The person, when known: every one of their sessions hears of the file. */
  userId?: string
}

interface FileRecord extends FileOwner {
  /** A digest of the file as its pages were last told of it. */
  shown?: string
}

export function createUploadedFiles (store: KeyValueStore) {
  const keyOf = (tenant: string, fileId: number): string => `uploaded-file:${tenant}:${fileId}`
  return {
    /** Who finished it, when media-bff saw it finished. */
    async ownerOf (tenant: string, fileId: number): Promise<FileOwner | undefined> {
      const record = readRecord(await store.get(keyOf(tenant, fileId)))
      if (record === undefined) return undefined
      const { shown: _shown, ...owner } = record
      return owner
    },

    /**
     * Claims the telling of the file as it is now: true when its pages have not heard of it as it
     * is (and now count as told), false when they have. With `owner` (a finish), the file
     * is remembered as that sign-in's; without, it must be remembered already.
     */
    async claimShowing (tenant: string, fileId: number, file: MediaFileView, owner?: FileOwner): Promise<boolean> {
      const key = keyOf(tenant, fileId)
      const stored = await store.get(key)
      const record = readRecord(stored)
      const next = owner ?? record
      if (next === undefined) return false
      const shown = digestOf(file)
      if (record?.shown === shown && sameOwner(record, next)) return false
      const { handle, sid, grantId, userId } = next
      const value: FileRecord = { handle, sid, grantId, ...(userId === undefined ? {} : { userId }), shown }
      // Another finish or follow-up of this file got there first: it tells the pages.
      return await store.compareAndSet(key, stored, JSON.stringify(value), REMEMBER_MS)
    }
  }
}

export type UploadedFiles = ReturnType<typeof createUploadedFiles>

/** The file's fields in a fixed order, hashed: the same description, the same digest. */
function digestOf (file: MediaFileView): string {
  const fields = Object.entries(file).sort(([a], [b]) => a < b ? -1 : 1)
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 22)
}

function sameOwner (a: FileOwner, b: FileOwner): boolean {
  return a.handle === b.handle && a.sid === b.sid && a.grantId === b.grantId && a.userId === b.userId
}

function readRecord (text: string | undefined): FileRecord | undefined {
  if (text === undefined) return undefined
  let record: Record<string, unknown> | undefined
  try {
    record = jsonRecord(JSON.parse(text))
  } catch {
    return undefined
  }
  const { handle, sid, grantId, userId, shown } = record ?? {}
  if (typeof handle !== 'string' || typeof sid !== 'string' || typeof grantId !== 'string') return undefined
  return { handle, sid, grantId, ...(typeof userId === 'string' ? { userId } : {}), ...(typeof shown === 'string' ? { shown } : {}) }
}
