// What a finish tells (src/events/finish-announcement.ts), without HTTP: its files remembered as
// this sign-in's, one message for all of them to the person's sessions, the caller not waiting
// for the bus, and nothing told twice.
import t from 'tap'
import { announceFinished } from '../../src/events/finish-announcement.js'
import { createUploadedFiles } from '../../src/uploads/uploaded-files.js'
import { createMemoryStore } from '../../src/store/memory-store.js'
import { signedInOf } from '../../src/sessions/signed-in.js'
import type { LiveMessage } from '../../src/events/live-message.js'

const timeouts = { idleTimeoutMs: 3_600_000, absoluteTimeoutMs: 7_200_000 }
const alice = signedInOf('sid-1', { grantId: 'g1', tenant: 'default', user: { id: '42' }, handle: 'handle-of-this-session0', authenticatedAt: Date.now() }, timeouts)
const nameless = signedInOf('sid-2', { grantId: 'g2', tenant: 'default', handle: 'handle-of-a-nameless-se', authenticatedAt: Date.now() }, timeouts)
const files = [1, 2, 3].map((id) => ({ file_id: id, title: `clip ${id}`, status: 'processing' }))

function parts (publish: (message: LiveMessage) => Promise<void>) {
  const store = createMemoryStore()
  t.teardown(() => store.close())
  const uploadedFiles = createUploadedFiles(store)
  return { uploadedFiles, handlesOf: async () => ['handle-of-another-tab00', 'handle-of-this-session0'], publish }
}

t.test('one message for every file, to the person\'s sessions; the caller does not wait for the bus', async (t) => {
  if (alice === undefined) throw new Error('not signed in')
  const published: LiveMessage[] = []
  // A bus that never answers (Redis stalled, say).
  const finishParts = parts(async (message) => { published.push(message); await new Promise(() => {}) })
  const { told, remembered } = await announceFinished(finishParts, alice, files)
  t.equal(remembered, true)
  told.catch(() => {})
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(published.length, 1, 'one message')
  t.same(published[0]?.data, { event: 'finished', files }, 'with all three files, as the service described them')
  t.same(published[0]?.handles, ['handle-of-another-tab00', 'handle-of-this-session0'], 'to every session of the person')
  t.same(await finishParts.uploadedFiles.ownerOf('default', 2), { handle: 'handle-of-this-session0', sid: 'sid-1', grantId: 'g1', userId: '42' }, 'each file remembered as this sign-in\'s')
})

t.test('a finish sent again tells nothing; a file that changed is told', async (t) => {
  if (alice === undefined) throw new Error('not signed in')
  const published: LiveMessage[] = []
  const finishParts = parts(async (message) => { published.push(message) })
  await (await announceFinished(finishParts, alice, files)).told
  await (await announceFinished(finishParts, alice, files)).told
  t.equal(published.length, 1, 'the second finish was news to nobody')
  await (await announceFinished(finishParts, alice, [{ ...files[0], status: 'ready' }])).told
  t.same(published.at(-1)?.data, { event: 'finished', files: [{ ...files[0], status: 'ready' }] })
})

t.test('a sign-in whose person is unknown tells its own session only', async (t) => {
  if (nameless === undefined) throw new Error('not signed in')
  const published: LiveMessage[] = []
  await (await announceFinished(parts(async (message) => { published.push(message) }), nameless, files)).told
  t.same(published[0]?.handles, ['handle-of-a-nameless-se'])
})

t.test('files that cannot be remembered are told anyway', async (t) => {
  if (alice === undefined) throw new Error('not signed in')
  const published: LiveMessage[] = []
  const finishParts = { ...parts(async (message) => { published.push(message) }), uploadedFiles: { claimShowing: async () => { throw new Error('store down') } } }
  const { told, remembered } = await announceFinished(finishParts, alice, files)
  await told
  t.equal(remembered, false)
  t.equal(published.length, 1)
})
