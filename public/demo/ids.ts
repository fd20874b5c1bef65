// Ids as the media service sends them (numbers, perhaps digit strings): read once, as
// non-negative safe integers, so nothing else ends up in a path or an attribute.

export function readId (value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : undefined
}
