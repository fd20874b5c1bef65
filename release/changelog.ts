// A release's notes are its section of CHANGELOG.md: from its `## <version> (<date>)` heading to
// the next `## `. The section must carry the day it is released, as the docs say: one still marked
// "(unreleased)", one without a date, or none at all stops the release, so the notes are written
// before the version is cut, never after.

export class ReleaseNotesError extends Error {
  override name = 'ReleaseNotesError'
}

const DATED = /^\((\d{4}-\d{2}-\d{2})\)$/

export function releaseNotes (changelog: string, version: string): string {
  const lines = changelog.split('\n')
  const start = lines.findIndex((line) => line.startsWith(`## ${version} `) || line === `## ${version}`)
  if (start < 0) throw new ReleaseNotesError(`CHANGELOG.md has no section "## ${version}": write the release notes first`)
  const heading = lines[start] ?? ''
  const example = `"## ${version} (YYYY-MM-DD)"`
  if (/unreleased/i.test(heading)) throw new ReleaseNotesError(`CHANGELOG.md's section for ${version} is still "${heading.slice(3)}": give it the release date, e.g. ${example}`)
  const date = DATED.exec(heading.slice(`## ${version} `.length))?.[1]
  if (date === undefined || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
    throw new ReleaseNotesError(`CHANGELOG.md's section for ${version} carries no release date ("${heading}"): write it as ${example}`)
  }
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '))
  return `${lines.slice(start + 1, end < 0 ? undefined : end).join('\n').trim()}\n`
}
