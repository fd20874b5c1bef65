// The prose of a markdown page as test/docs/plain-words.unit.test.ts measures it: its paragraphs
// (a list item is one), each split into sentences, and the words of each. Code blocks, tables,
// front matter, headings, HTML and VitePress's container fences are not prose and are left out;
// inline code counts as one word, a link as its text.

export interface Paragraph {
  /** The paragraph as written, on one line (what a failure quotes). */
  source: string
  /** Its text as measured: inline code as one word, links as their text. */
  text: string
  words: number
  /** The number of words of each sentence. */
  sentences: number[]
}

/** Abbreviations whose full stop ends no sentence ("e.g. a file", "cf. RFC 6265"). */
const ABBREVIATIONS = new Set(['e.g.', 'i.e.', 'cf.', 'vs.', 'etc.', 'approx.', 'no.', 'resp.'])

const LIST_ITEM = /^ *(?:[-*+]|\d+\.) +/

/** The page's paragraphs of prose, in order. */
export function paragraphsOf (markdown: string): Paragraph[] {
  const lines = markdown.replace(/^---\n[\s\S]*?\n---\n/, '').replace(/<!--[\s\S]*?-->/g, '').split('\n')
  const blocks: string[][] = []
  let block: string[] = []
  let fence: string | undefined
  const close = (): void => {
    if (block.length > 0) blocks.push(block)
    block = []
  }
  for (const line of lines) {
    const marker = /^ *(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
      continue
    }
    if (marker !== undefined) {
      close()
      fence = marker
      continue
    }
    const trimmed = line.trim()
    // Blank lines, headings, tables, container fences (`::: tip`), lines of HTML, rules.
    if (trimmed === '' || /^(#{1,6} |\||:::|<\/?[a-zA-Z!]|(-{3,}|\*{3,}|_{3,})$)/.test(trimmed)) {
      close()
      continue
    }
    if (LIST_ITEM.test(line)) close()
    block.push(trimmed.replace(/^> ?/, ''))
  }
  close()
  return blocks.map((lines) => measure(lines.join(' ').replace(LIST_ITEM, '')))
}

function measure (markdown: string): Paragraph {
  const source = markdown.replace(/\s+/g, ' ').trim()
  const text = markdown
    // Inline code reads as one word, whatever it holds (`npm install && npm start`, `app.ts`).
    .replace(/(`+)[^`]+?\1/g, 'CODE')
    // A link or an image reads as its text.
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|__/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  const sentences: number[] = []
  let count = 0
  for (const token of text.split(' ')) {
    // A word holds a letter or a digit: a dash or an arrow on its own is not one.
    if (/[\p{L}\p{N}]/u.test(token)) count++
    if (endsSentence(token)) {
      if (count > 0) sentences.push(count)
      count = 0
    }
  }
  if (count > 0) sentences.push(count)
  return { source, text, words: sentences.reduce((sum, words) => sum + words, 0), sentences }
}

/**
 * A token ends its sentence when it ends in a full stop, a question or exclamation mark, perhaps
 * followed by closing quotes or brackets, and is not an abbreviation. A full stop inside a token
 * (a decimal point, a file name, a host) ends nothing: only a space follows a sentence's end.
 */
function endsSentence (token: string): boolean {
  const bare = token.replace(/["')\]*_]+$/, '')
  if (!/[.!?]$/.test(bare)) return false
  if (ABBREVIATIONS.has(bare.replace(/^["'(*_]+/, '').toLowerCase())) return false
  // An ellipsis in a list ("file_upload, ..."), not the end of a sentence.
  return !/^\.{3}$|…$/.test(bare)
}

export interface PageFigures {
  /** Words per sentence over the whole page. */
  averageSentence: number
  longestParagraph: Paragraph | undefined
  paragraphs: Paragraph[]
}

export function figuresOf (markdown: string): PageFigures {
  const paragraphs = paragraphsOf(markdown)
  const sentences = paragraphs.flatMap((paragraph) => paragraph.sentences)
  const words = sentences.reduce((sum, count) => sum + count, 0)
  const longestParagraph = paragraphs.reduce<Paragraph | undefined>((longest, paragraph) => longest === undefined || paragraph.words > longest.words ? paragraph : longest, undefined)
  return { averageSentence: sentences.length === 0 ? 0 : words / sentences.length, longestParagraph, paragraphs }
}
