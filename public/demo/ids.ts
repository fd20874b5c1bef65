// Ids as the media service sends them (numbers, perhaps digit strings): read once, as whole
// numbers from 0 to 15 digits (what media-bff's relay takes in a path), so nothing else ends up
// in a path or an attribute. The browser module (public/client/urls.ts, idSegment) keeps its own
// copy of this check, as the module stays self-contained.

const MAX_ID = 999_999_999_999_999

export function readId (value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 && id <= MAX_ID ? id : undefined
}
