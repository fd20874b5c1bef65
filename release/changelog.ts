// A release's notes are its section of CHANGELOG.md: from its `## <version>` heading to the next
// `## `. A section still marked "(unreleased)", or none at all, stops the release: the notes are
// written before the version is cut, never after.

export class ReleaseNotesError extends Error {
  override name = 'ReleaseNotesError'
}

export function releaseNotes (changelog: string, version: string): string {
  const lines = changelog.split('\n')
  const start = lines.findIndex((line) => line.startsWith(`## ${version} `) || line === `## ${version}`)
  if (start < 0) throw new ReleaseNotesError(`CHANGELOG.md has no section "## ${version}": write the release notes first`)
  const heading = lines[start] ?? ''
  if (/unreleased/i.test(heading)) throw new ReleaseNotesError(`CHANGELOG.md's section for ${version} is still "${heading.slice(3)}": give it the release date, e.g. "## ${version} (2026-12-01)"`)
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '))
  return `${lines.slice(start + 1, end < 0 ? undefined : end).join('\n').trim()}\n`
}
