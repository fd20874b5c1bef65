// The URLs the emulator is given to call or send browsers to (redirect URIs, webhook endpoints):
// absolute http(s), and without a fragment, which an HTTP request cannot carry.

export function isAbsoluteHttpUrl (value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hash === '' && !value.includes('#')
  } catch {
    return false
  }
}
