// The streaming link rewriter: for any JSON document, split anywhere, the output is the same
// document with exactly the tenant API links made local; anything that is not one whole object
// or array is refused.
import t from 'tap'
import fc from 'fast-check'
import { JsonLinkRewriter, JsonStructureError } from '../../src/relay/json-link-rewriter.js'

const TENANT = 'https://tenant.example'
const LOCAL = 'https://bff.example/api'
const rewrite = (value: string): string | undefined => value.startsWith(`${TENANT}/api/`) ? `${LOCAL}${value.slice(TENANT.length + 4)}` : undefined
const rewriter = (): JsonLinkRewriter => new JsonLinkRewriter({ marker: 'tenant.example', rewrite })

function run (input: Buffer, cuts: number[] = []): string {
  const instance = rewriter()
  const out: Buffer[] = []
  let from = 0
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b).filter((at) => at > 0 && at < input.length)) {
    out.push(instance.push(input.subarray(from, cut)))
    from = cut
  }
  out.push(instance.push(input.subarray(from)))
  instance.end()
  return Buffer.concat(out).toString('utf8')
}

function expected (value: unknown): unknown {
  if (typeof value === 'string') return rewrite(value) ?? value
  if (Array.isArray(value)) return value.map(expected)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expected(item)]))
  return value
}

const link = fc.webPath().map((path) => `${TENANT}/api${path.startsWith('/') ? path : `/${path}`}`)
const leaf = fc.oneof(fc.string({ unit: 'grapheme' }), link, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
const documents = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  // Keys that look like links too: they are names and must pass unchanged.
  object: fc.dictionary(fc.oneof(fc.string(), link), tie('value'), { maxKeys: 5 })
})).value.map((value) => typeof value === 'object' && value !== null ? value : [value])

t.test('any document, any spelling, any split: exactly the tenant API links change', async (t) => {
  fc.assert(fc.property(documents, fc.boolean(), fc.integer({ min: 0, max: 4 }), fc.array(fc.nat(), { maxLength: 8 }), (document, escapeSlashes, indent, cuts) => {
    let text = JSON.stringify(document, null, indent)
    // PHP's json_encode writes \/ for every slash: the same document.
    if (escapeSlashes) text = text.replaceAll('/', '\\/')
    const input = Buffer.from(text)
    const output = run(input, cuts.map((cut) => cut % (input.length + 1)))
    t.same(JSON.parse(output), expected(document))
  }), { numRuns: 400 })
})

t.test('every strict prefix of a document is refused as incomplete', async (t) => {
  fc.assert(fc.property(documents, fc.nat(), (document, at) => {
    const input = Buffer.from(JSON.stringify(document))
    const cut = at % input.length
    t.throws(() => run(input.subarray(0, cut)), JsonStructureError)
  }), { numRuns: 300 })
})

t.test('arbitrary bytes never throw anything but a structure error', async (t) => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
    try {
      run(Buffer.from(bytes))
    } catch (error) {
      t.ok(error instanceof JsonStructureError)
    }
  }), { numRuns: 500 })
})

t.test('what is refused, by name', async (t) => {
  const refused: Array<[string, string]> = [
    ['a bare string', '"x"'],
    ['a bare number', '12'],
    ['an empty body', ''],
    ['whitespace only', '  \n'],
    ['two documents', '{}{}'],
    ['trailing garbage', '{} x'],
    ['unbalanced brackets', '{"a":[1}'],
    ['closing first', ']'],
    ['HTML', '<html></html>'],
    ['a broken escape in a link', `{"a":"${TENANT}/api/\\x"}`],
    ['an unterminated string', '{"a":"b']
  ]
  for (const [name, body] of refused) t.throws(() => run(Buffer.from(body)), JsonStructureError, name)
  const long = new JsonLinkRewriter({ marker: 'tenant.example', rewrite, maxStringBytes: 10 })
  t.throws(() => long.push(Buffer.from('{"a":"01234567890"}')), JsonStructureError, 'a string over the cap')
  const spanning = new JsonLinkRewriter({ marker: 'tenant.example', rewrite, maxStringBytes: 10 })
  spanning.push(Buffer.from('{"a":"012345'))
  t.throws(() => spanning.push(Buffer.from('67890"}')), JsonStructureError, 'a string over the cap across chunks')
})

t.test('multi-byte characters split across chunks come out whole', async (t) => {
  const input = Buffer.from(JSON.stringify({ title: 'Grüße 🎬', u: `${TENANT}/api/files/1?name=ü` }))
  for (let cut = 1; cut < input.length; cut++) {
    t.same(JSON.parse(run(input, [cut])), { title: 'Grüße 🎬', u: `${LOCAL}/files/1?name=ü` })
  }
})
