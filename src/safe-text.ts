// Text a person will read that came from elsewhere (the media service's error messages, file
// titles) or that media-bff passes on for others to read (names and titles a browser sends).
// C0 and C1 control characters break lines, logs and terminals; bidirectional controls (U+061C,
// U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) reorder what follows them, so "txt.exe" can
// be made to read as "exe.txt". Neither belongs in a name or a sentence.

/** The characters no shown text may carry. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g')
/** Line breaks and tabs part words: they become a space rather than joining the words. */
const SPACING = /[\t\n\v\f\r\u0085]+/g

export function hasUnsafeCharacters (text: string): boolean {
  return UNSAFE.test(text)
}

/** Why a name or title with such a character is refused, naming the field. */
export function unsafeTextMessage (field: string): string {
  return `${field} may not contain control characters or bidirectional text controls (such as U+202E).`
}

/**
 * `text` without control or bidirectional characters (line breaks and tabs become spaces),
 * trimmed, and cut to at most `maxLength` UTF-16 units without splitting a surrogate pair.
 */
export function plainText (text: string, maxLength: number): string {
  let plain = text.replace(SPACING, ' ').replace(UNSAFE_ALL, '').trim()
  if (plain.length > maxLength) {
    const last = plain.charCodeAt(maxLength - 1)
    // A high surrogate at the cut would be left without its pair.
    plain = plain.slice(0, last >= 0xd800 && last <= 0xdbff ? maxLength - 1 : maxLength)
  }
  return plain
}
