// The one way the readers of the media service's answers look inside a JSON value they do not
// trust yet: an object's fields, or nothing.

/** `value`'s fields when it is a plain JSON object (not null, not an array); undefined otherwise. */
export function jsonRecord (value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}
