// Reading JSON answers without trusting their shape.

/** A JSON object (not null, not an array). */
export function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function record (value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {}
}

export function records (value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter(isRecord) : []
}

/** The JSON object in `text`, or undefined when it is not one. */
export function parseJson (text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}
