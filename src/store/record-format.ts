// Which shape of record wrote a stored session, grant or index entry (`format`). A rolling
// upgrade runs two versions of media-bff on one store, each reading what the other writes, so a
// new format may only add fields the version before it can ignore, and each version reads the
// format before its own (media-bff 0.1.0 wrote none: format 0) and the one after it. A record
// further away than that is not read rather than misread: a session or a grant of such a format
// signs that session out (its grant deleted), an entry of a person's index is left in place. A
// rewrite (a refreshed grant) is in this version's format; fields it does not know ride along.
// CHANGELOG.md names the format of each release; test/store/previous-records.test.ts reads the
// previous release's records with the current code.

/** The format this version writes. */
export const RECORD_FORMAT = 1

/** A record's format: its `format` field, 0 for one written before records carried it. */
export function formatOf (record: { format?: unknown }): number {
  return typeof record.format === 'number' && Number.isInteger(record.format) ? record.format : 0
}

/** Whether this version reads a record of that format: its own, the one before or the one after. */
export function isReadableFormat (record: { format?: unknown }): boolean {
  return Math.abs(formatOf(record) - RECORD_FORMAT) <= 1
}
