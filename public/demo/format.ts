// Human-readable numbers for the demo page.

const units = ['bytes', 'KB', 'MB', 'GB', 'TB']

/** 5242880 → "5.0 MB": steps of 1024, as most file managers count. */
export function formatBytes (bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–'
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? ''}`
}

export function percent (loaded: number, total: number): number {
  if (total <= 0) return 0
  return Math.min(100, Math.round((loaded / total) * 100))
}

/** A short badge for a file: its extension (at most four letters), or "file". */
export function extensionOf (filename: string): string {
  const dot = filename.lastIndexOf('.')
  const extension = dot > 0 ? filename.slice(dot + 1, dot + 5) : ''
  return extension === '' ? 'file' : extension.toLowerCase()
}
