// What a finished upload tells: its files are remembered as this sign-in's (so the service's
// webhooks about them are followed for its person: src/webhooks/webhook-hints.ts), and the open
// pages of its person (of this sign-in alone when the user id is unknown) hear, in one message,
// what the service said of each at finish. A file its pages already heard of as it is now (a
// finish sent twice: the service finished the upload by itself, then the browser module did) is
// not told again.
import type { MediaFileView } from '../media/read-media-file.js'
import type { Person } from '../sessions/session-index.js'
import type { SignedIn } from '../sessions/signed-in.js'
import type { UploadedFiles } from '../uploads/uploaded-files.js'
import { newMessageId, type LiveMessage } from './live-message.js'
import { MAX_FILES_PER_MESSAGE } from './live-events.js'

/** Files remembered per finish, for their webhooks; the rest get no live updates. */
const MAX_REMEMBERED_FILES = 1_000

export interface FinishAnnouncementParts {
  uploadedFiles: Pick<UploadedFiles, 'claimShowing'>
  /** The handles of the person's live sessions. */
  handlesOf: (person: Person) => Promise<string[]>
  publish: (message: LiveMessage) => Promise<void>
}

/**
 * Remembers the files and decides which are news; resolves to the telling, which the caller
 * need not wait for. Fails only when the files could not be remembered (they are told anyway).
 */
export async function announceFinished (parts: FinishAnnouncementParts, signedIn: SignedIn, files: readonly MediaFileView[]): Promise<{ told: Promise<void>, remembered: boolean }> {
  const { handle, sid, grantId, tenant, person } = signedIn
  const owner = { handle, sid, grantId, ...(person === undefined ? {} : { userId: person.userId }) }
  let untold = files
  let remembered = true
  try {
    const news = await Promise.all(files.slice(0, MAX_REMEMBERED_FILES).map(async (file) => {
      const fileId = Number(file.file_id)
      return !(Number.isSafeInteger(fileId) && fileId >= 0) || await parts.uploadedFiles.claimShowing(tenant, fileId, file, owner)
    }))
    untold = files.filter((_file, i) => news[i] ?? true)
  } catch {
    remembered = false
  }
  if (untold.length === 0) return { told: Promise.resolve(), remembered }
  const told = (async () => {
    const handles = person === undefined ? [handle] : await parts.handlesOf(person)
    if (!handles.includes(handle)) handles.push(handle)
    await parts.publish({ id: newMessageId(), event: 'file', handles, data: { event: 'finished', files: untold.slice(0, MAX_FILES_PER_MESSAGE) } })
  })()
  return { told, remembered }
}
