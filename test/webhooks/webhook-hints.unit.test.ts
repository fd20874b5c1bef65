// A webhook's follow-up (src/webhooks/webhook-hints.ts) without a server: which files it looks
// at, whose token reads them, who hears of them, and what it does when the service or a grant
// fails. The parts it is given are in-memory and recorded.
import t from 'tap'
import { followHint, type HintParts } from '../../src/webhooks/webhook-hints.js'
import { createUploadedFiles } from '../../src/uploads/uploaded-files.js'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { UpstreamError } from '../../src/media/upstream-error.js'
import { GrantEndedError } from '../../src/grants/grant-errors.js'
import type { LiveMessage } from '../../src/events/live-message.js'
import type { FollowUp } from '../../src/webhooks/follow-up-queue.js'
import type { MediaFileView } from '../../src/media/read-media-file.js'

const job = (fileId: number | undefined, event: FollowUp['event'] = 'file_transcode'): FollowUp => ({ tenant: 'default', id: 'id', event, fileId, acceptedAt: Date.now() })
const session = (handle: string, grantId: string) => ({ handle, sid: `sid-${handle}`, grantId, createdAt: 0, device: '', network: '', lastActiveAt: 0 })

async function setUp (readFile: HintParts['readFile'], sessions = [session('laptop-handle-aaaaaaaaaa', 'g1'), session('phone-handle-bbbbbbbbbbb', 'g2')]) {
  const store = createMemoryStore()
  t.teardown(() => store.close())
  const uploadedFiles = createUploadedFiles(store)
  await uploadedFiles.claimShowing('default', 7, { file_id: 7, status: 'processing' }, { handle: 'laptop-handle-aaaaaaaaaa', sid: 'sid-laptop', grantId: 'g1', userId: '42' })
  const published: LiveMessage[] = []
  const reads: string[] = []
  const parts: HintParts = {
    uploadedFiles,
    personSessions: { list: async () => sessions, liveUntil: async () => Date.now() + 60_000 },
    readFile: async (tenant, grantId, fileId, requestId) => { reads.push(grantId); return await readFile(tenant, grantId, fileId, requestId) },
    publish: async (message) => { published.push(message) }
  }
  return { parts, published, reads }
}

const ready: MediaFileView = { file_id: 7, title: 'Clip', status: 'ready' }

t.test('a file it saw finished: read with the person\'s grant, told to every session of the person, once', async (t) => {
  const { parts, published, reads } = await setUp(async () => ready)
  t.equal(await followHint(parts, job(7)), 'announced')
  t.same(published[0]?.handles, ['laptop-handle-aaaaaaaaaa', 'phone-handle-bbbbbbbbbbb'])
  t.same(published[0]?.data, { event: 'file_transcode', files: [ready] }, 'what the service said, never the webhook')
  t.same(reads, ['g1'])
  t.equal(await followHint(parts, job(7)), 'already_told', 'the same state again: nothing new to tell')
  t.equal(published.length, 1)
})

t.test('what it leaves alone: not a file, a file never finished here, nobody signed in', async (t) => {
  const { parts } = await setUp(async () => ready, [])
  t.equal(await followHint(parts, job(undefined)), 'not_a_file')
  t.equal(await followHint(parts, job(7, 'folder_trash')), 'not_a_file')
  t.equal(await followHint(parts, job(8)), 'unknown_file')
  t.equal(await followHint(parts, job(7)), 'nobody_signed_in')
})

t.test('a grant that ended is passed over; the service refusing the file is the person\'s answer', async (t) => {
  const { parts, reads } = await setUp(async (_tenant, grantId) => {
    if (grantId === 'g1') throw new GrantEndedError('invalid_grant')
    return ready
  })
  t.equal(await followHint(parts, job(7)), 'announced', 'read with the next session\'s grant')
  t.same(reads, ['g1', 'g2'])
  const refused = await setUp(async () => { throw new UpstreamError('refused', 'file', 'no such file', 404) })
  t.equal(await followHint(refused.parts, job(7)), 'unreadable')
  t.same(refused.reads, ['g1'], 'no other session is asked')
})

t.test('the service away: the follow-up fails, to be tried again', async (t) => {
  const { parts, published } = await setUp(async () => { throw new UpstreamError('network', 'file', 'connection refused') })
  await t.rejects(followHint(parts, job(7)), UpstreamError)
  t.same(published, [])
})
