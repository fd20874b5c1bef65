// The unit lane (`npm run test:unit`, docs/guide/develop.md) runs pure modules only: a file named
// *.unit.test.ts that starts a server, an app, the emulator or a real program belongs in the suite.
import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { join, relative } from 'node:path'

const testDir = fileURLToPath(new URL('..', import.meta.url))

/** What only a server, a whole app or another process brings. */
const NOT_UNIT = [
  /from '[./]*helpers\/(bff|build|chromium|client-package|emulator|emulator-child|redis|nginx|prometheus-server|npm-registry|image-registry|child-process|processes|otlp-receiver|tls)\.js'/,
  /from '[./]*(emulator\/index|src\/app|src\/server)\.js'/,
  /\bcreateServer\(/,
  /\.listen\(/,
  /\bspawn\(|\bexecFile\(/
]

async function unitFiles (dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.unit.test.ts')).map((entry) => join(entry.parentPath, entry.name))
}

t.test('no unit test starts a server, an app or a program', async (t) => {
  const files = await unitFiles(testDir)
  t.ok(files.length > 20, `${files.length} unit files`)
  for (const file of files) {
    const text = await readFile(file, 'utf8')
    const found = NOT_UNIT.filter((pattern) => pattern.test(text)).map(String)
    t.same(found, [], relative(testDir, file))
  }
})
