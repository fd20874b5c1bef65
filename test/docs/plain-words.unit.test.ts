// The hand-written pages in plain words (the issue: "short sentences, one idea per paragraph"):
// on each page, sentences average at most MAX_AVERAGE_SENTENCE words, and no paragraph (a list
// item is one) is longer than MAX_PARAGRAPH words. Code blocks, tables, front matter, headings and
// HTML are not prose and are not counted (./plain-words.ts). The generated references
// (docs/reference/configuration.md, api.md) and emulator/README.md, which the emulator's page
// includes, are not held to it here.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { figuresOf, paragraphsOf } from './plain-words.js'

const MAX_AVERAGE_SENTENCE = 20
const MAX_PARAGRAPH = 150

const GUIDES = ['quick-start', 'integrate', 'browser-module', 'deploy', 'configure', 'operate', 'security', 'upgrade', 'emulator', 'develop']
const PAGES = ['README.md', 'docs/index.md', ...GUIDES.map((guide) => `docs/guide/${guide}.md`), 'docs/reference/http-api.md']

/** What a failure shows of a paragraph: its length and its start. */
const shown = (text: string, words: number): string => `${words} words: ${text.length > 160 ? `${text.slice(0, 160)}...` : text}`

for (const page of PAGES) {
  t.test(`${page}: short sentences, short paragraphs`, async (t) => {
    const { averageSentence, paragraphs } = figuresOf(await readFile(new URL(`../../${page}`, import.meta.url), 'utf8'))
    t.ok(paragraphs.length > 0, `${page} has prose to measure`)
    t.ok(averageSentence <= MAX_AVERAGE_SENTENCE, `${page}: sentences average ${averageSentence.toFixed(1)} words, more than ${MAX_AVERAGE_SENTENCE}`)
    const tooLong = paragraphs.filter((paragraph) => paragraph.words > MAX_PARAGRAPH).map((paragraph) => shown(paragraph.source, paragraph.words))
    t.same(tooLong, [], `${page}: no paragraph over ${MAX_PARAGRAPH} words`)
  })
}

t.test('what is measured: prose, not code, tables, front matter, headings or HTML', async (t) => {
  const page = [
    '---', 'layout: home', 'hero:', '  name: a b c d e', '---', '',
    '# A heading of many words that is not prose', '',
    'One sentence here. Another one there.', '',
    '```sh', 'npm install && npm start. Not counted at all here.', '```', '',
    '| a | b |', '|---|---|', '| many words in a cell. | and more. |', '',
    '<!-- a comment. -->', '<div class="x">', '',
    '- A list item is a paragraph.', '- So is this one,', '  over two lines.', '',
    '1. A step.', '   ```js', '   const x = 1.5', '   ```', '2. Another step.', '',
    '::: tip', 'Inside a container.', ':::'
  ].join('\n')
  t.same(paragraphsOf(page).map((paragraph) => paragraph.text), [
    'One sentence here. Another one there.',
    'A list item is a paragraph.',
    'So is this one, over two lines.',
    'A step.',
    'Another step.',
    'Inside a container.'
  ])
})

t.test('sentences end at a full stop, question or exclamation mark and a space, not inside a token or after an abbreviation', async (t) => {
  const [paragraph] = paragraphsOf('Use e.g. `app.ts`, i.e. the file app.ts. It takes 1.5 s (cf. RFC 6265). Is it ready? Yes! The list goes on: a, b, ... and c. Run it (`npm start`).')
  t.same(paragraph?.sentences, [7, 7, 3, 1, 8, 3])
  t.equal(paragraph?.words, 29)
  const [linked] = paragraphsOf('Read [the guide to the site](guide/deploy.md#with-docker-compose). Then **start** it.')
  t.equal(linked?.text, 'Read the guide to the site. Then start it.', 'a link reads as its text, emphasis as its words')
  t.same(linked?.sentences, [6, 3])
})

t.test('the checks can fail: a long-winded page is caught', async (t) => {
  const sentence = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ') + '.'
  const { averageSentence, longestParagraph } = figuresOf(`# Title\n\n${sentence} ${sentence}\n\n- ${Array.from({ length: 6 }, () => sentence).join(' ')}\n`)
  t.equal(averageSentence, 30)
  t.ok(averageSentence > MAX_AVERAGE_SENTENCE, 'its average is over the bound')
  t.equal(longestParagraph?.words, 180)
  t.ok((longestParagraph?.words ?? 0) > MAX_PARAGRAPH, 'its list item is over the bound')
})
