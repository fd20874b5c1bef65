// Unit tests of src/capped-body.ts: a body is read whole up to the cap and refused the
// moment it passes it, without reading on.
import t from 'tap'
import { BodyTooLargeError, readCappedText } from '../src/capped-body.js'

async function * chunks (count: number, size: number, read: { chunks: number }): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) {
    read.chunks++
    yield new Uint8Array(size).fill(0x61)
  }
}

t.test('within the cap: the whole text', async (t) => {
  const read = { chunks: 0 }
  t.equal(await readCappedText(chunks(4, 25, read), 100), 'a'.repeat(100))
})

t.test('past the cap: refused at the first chunk over it, the rest never read', async (t) => {
  const read = { chunks: 0 }
  await t.rejects(readCappedText(chunks(1000, 25, read), 100), BodyTooLargeError)
  t.equal(read.chunks, 5)
})

t.test('multi-byte characters split across chunks survive', async (t) => {
  const bytes = Buffer.from('é€😀', 'utf8')
  async function * split (): AsyncGenerator<Uint8Array> {
    for (const byte of bytes) yield Uint8Array.of(byte)
  }
  t.equal(await readCappedText(split(), 100), 'é€😀')
})
