// The upload store indexes an accepted file before the rename into files/ is awaited, so a
// folder delete that lands during the rename sees the folder holding the file (and refuses)
// instead of deleting it under the upload. No timing needed: everything accept does before its
// first await has run when it returns its promise.
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createUploadStore, type ReceivedFile, type StoredFile, type UploadStore } from '../../emulator/upload/upload-store.js'

async function setUp (t: Test): Promise<{ store: UploadStore, received: (name: string, onDisk?: boolean) => Promise<ReceivedFile> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'emulator-upload-store-'))
  t.teardown(async () => { await rm(dataDir, { recursive: true, force: true }) })
  const store = await createUploadStore(dataDir)
  const received = async (name: string, onDisk = true): Promise<ReceivedFile> => {
    const tempPath = join(store.incomingDir, name)
    if (onDisk) await writeFile(tempPath, 'hello')
    return { tempPath, filename: `${name}.txt`, mimeType: 'text/plain', size: 5, sha256: 'x' }
  }
  return { store, received }
}

const exists = async (path: string): Promise<boolean> => await access(path).then(() => true, () => false)
const fields = { ulid: null, userName: 'alice', folderId: 7, title: 'a file' }

function onlyFileIn (store: UploadStore): StoredFile {
  const [file, ...others] = store.filesIn('alice', 7)
  if (file === undefined || others.length > 0) throw new Error('expected one file in the folder')
  return file
}

t.test('a file counts in its folder while its rename is still running', async (t) => {
  const { store, received } = await setUp(t)
  const accepting = store.accept(await received('one'), fields)
  t.equal(store.countIn('alice', 7), 1, 'the folder holds the file before the rename has finished')
  const pending = onlyFileIn(store)
  t.equal(store.file(pending.fileId), pending, 'and the file can be found by id')
  const stored = await accepting
  t.equal(stored, pending, 'accept answers the file it indexed')
  t.ok(await exists(stored.path), 'the contents are in files/')
})

t.test('a failed rename takes the file out of the index again', async (t) => {
  const { store, received } = await setUp(t)
  const accepting = store.accept(await received('missing', false), fields)
  t.equal(store.countIn('alice', 7), 1, 'indexed while the rename runs')
  await t.rejects(accepting, { code: 'ENOENT' }, 'the rename error reaches the caller')
  t.equal(store.countIn('alice', 7), 0, 'the folder is empty again')
  t.same(store.files(), [], 'and no file is left')
})

t.test('a file removed while its rename runs leaves no contents behind', async (t) => {
  const { store, received } = await setUp(t)
  const accepting = store.accept(await received('two'), fields)
  const pending = onlyFileIn(store)
  await store.remove(pending)
  const stored = await accepting
  t.equal(store.file(stored.fileId), undefined, 'the file is forgotten')
  t.equal(await exists(stored.path), false, 'and its contents are not in files/')
})
