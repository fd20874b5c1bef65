// Text that reaches people: no control or bidirectional characters, a bounded length, and text
// that had none of them (and fits) passes unchanged. The property is checked over generated
// strings mixing ordinary text with every character class refused.
import t from 'tap'
import fc from 'fast-check'
import { hasUnsafeCharacters, plainText } from '../../src/safe-text.js'
import { serviceErrorFields } from '../../src/media/upstream-error.js'

const unsafe = fc.constantFrom('\u0000', '\u0007', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009b', '\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069')
const text = fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), unsafe), { maxLength: 20 }).map((parts) => parts.join(''))
// Written out again, not imported: the module is checked against the list its header names.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const refused = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

t.test('plainText never lets a control or bidirectional character through, and never exceeds its length', async (t) => {
  fc.assert(fc.property(text, fc.integer({ min: 1, max: 40 }), (value, max) => {
    const plain = plainText(value, max)
    if (refused.test(plain)) throw new Error(`${JSON.stringify(plain)} carries a refused character`)
    if (plain.length > max) throw new Error(`${plain.length} > ${max}`)
    if (/[\ud800-\udbff]$/.test(plain) && !/[\ud800-\udbff]$/.test(value.slice(0, plain.length))) throw new Error('the cut split a surrogate pair')
    if (hasUnsafeCharacters(plain)) throw new Error('hasUnsafeCharacters disagrees')
    if (!refused.test(value) && value.trim().length <= max && plain !== value.trim()) throw new Error(`${JSON.stringify(value)} was changed`)
    if (refused.test(value) !== hasUnsafeCharacters(value)) throw new Error(`hasUnsafeCharacters is wrong on ${JSON.stringify(value)}`)
  }), { numRuns: 3000 })
  t.equal(plainText('Line one\r\nline two\tend', 100), 'Line one line two end', 'line breaks and tabs part words')
  t.equal(plainText('report\u202Efdp.exe', 100), 'reportfdp.exe', 'a right-to-left override is dropped')
  t.equal(plainText('\u001b[31mred\u001b[0m', 100), '[31mred[0m', 'an escape sequence loses its escape')
  t.equal(plainText('😀😀', 3), '😀', 'a pair is never split')
})

t.test('the service\'s error fields reach the browser as plain, bounded text', async (t) => {
  const fields = serviceErrorFields({
    error: 'bad\u0000name',
    error_description: `Folder \u202Egnp.exe\u202C is ${'very '.repeat(200)}long`,
    user_message: 'Please\r\nsign in \u2066again\u2069.'
  })
  t.equal(fields.error, 'badname')
  t.equal(fields.error_description?.startsWith('Folder gnp.exe is very'), true)
  t.ok((fields.error_description?.length ?? 0) <= 300, 'capped')
  t.equal(fields.user_message, 'Please sign in again.')
  t.same(serviceErrorFields({ error: '\u200e\u200f', user_message: '\u0007' }), {}, 'nothing left: no field')
})
