// The browser module's event-stream reader against the HTML standard's rules: however the bytes
// are cut into chunks and whichever line ending the server uses, the same events come out.
import t from 'tap'
import fc from 'fast-check'
import { sseReader, type ServerSentEvent } from '../../public/client/sse.js'

const read = (chunks: string[]): { events: ServerSentEvent[], lastEventId: string, retryMs: number | undefined } => {
  const events: ServerSentEvent[] = []
  const reader = sseReader((event) => events.push(event))
  for (const chunk of chunks) reader.push(chunk)
  return { events, lastEventId: reader.lastEventId, retryMs: reader.retryMs }
}

t.test('fields, comments, multi-line data, ids and retry', async (t) => {
  const { events, lastEventId, retryMs } = read([
    'retry: 2500\n',
    ': keep-alive\n\n',
    'id: 1\nevent: file\ndata: {"a":1}\n\n',
    'data: first\ndata:second\n\n',
    'event: empty\n\n',
    'id\nunknown: x\ndata\n\n'
  ])
  t.same(events, [
    { event: 'file', data: '{"a":1}', lastEventId: '1' },
    { event: 'message', data: 'first\nsecond', lastEventId: '1' },
    { event: 'message', data: '', lastEventId: '' }
  ], 'an event without data is not dispatched; a bare `id` resets it')
  t.equal(lastEventId, '')
  t.equal(retryMs, 2500)
  t.equal(read(['retry: soon\n\n']).retryMs, undefined, 'a retry that is not digits is ignored')
  t.equal(read(['id: a\0b\n\n']).lastEventId, '', 'an id holding NUL is ignored')
  t.same(read(['data: unfinished']).events, [], 'an event without its blank line is not dispatched yet')
})

const text = fc.string({ unit: fc.constantFrom('a', 'é', '{', '"', ':', ' ', '😀', 'z') })
const anEvent = fc.record({ event: fc.constantFrom('file', 'session', 'resync', 'ready'), id: fc.option(fc.stringMatching(/^[\w.-]{1,20}$/), { nil: undefined }), lines: fc.array(text, { minLength: 1, maxLength: 3 }) })

t.test('property: any cut into chunks, any line ending, the same events', async () => {
  fc.assert(fc.property(fc.array(anEvent, { maxLength: 8 }), fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 10 }), (sent, eol, cuts) => {
    const stream = sent.map(({ event, id, lines }) =>
      `: heartbeat${eol}${id === undefined ? '' : `id: ${id}${eol}`}event: ${event}${eol}${lines.map((line) => `data: ${line}${eol}`).join('')}${eol}`).join('')
    const points = [...new Set(cuts.map((cut) => cut % (stream.length + 1)))].sort((a, b) => a - b)
    const chunks = [0, ...points].map((from, i, all) => stream.slice(from, all[i + 1] ?? stream.length))
    let lastId = ''
    const expected = sent.map(({ event, id, lines }) => {
      if (id !== undefined) lastId = id
      return { event, data: lines.join('\n'), lastEventId: lastId }
    })
    const { events, lastEventId } = read(chunks)
    return JSON.stringify(events) === JSON.stringify(expected) && lastEventId === lastId
  }))
})
