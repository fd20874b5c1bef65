// What the app decorates Fastify with, read from the source: at most 22 decorators, at most 4 of
// them about sessions (the gate and the session face replaced twelve). A new decorator is a
// decision: it goes in this list with it.
import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const root = fileURLToPath(new URL('../../', import.meta.url))
const DECORATION = /\.decorate(Request|Reply)?(?:<[^>]*>)?\(\s*'([A-Za-z]+)'/g

const ABOUT_SESSIONS = ['sessions', 'request.signedIn', 'request.access', 'deviceBinding']
const OTHERS = ['audit', 'authorizationServers', 'clock', 'config', 'grants', 'isOperator', 'live', 'loginTransactions', 'media', 'metrics', 'registrations', 'relay', 'requestableScopes', 'roomForSignIn', 'stores', 'tokenEndpoint', 'tokens', 'uploadedFiles']

async function decorations (): Promise<string[]> {
  const found: string[] = []
  for (const dir of ['plugins', 'routes', 'src']) {
    const entries = await readdir(join(root, dir), { withFileTypes: true, recursive: true })
    for (const entry of entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))) {
      const text = await readFile(join(entry.parentPath, entry.name), 'utf8')
      for (const [, kind, name] of text.matchAll(DECORATION)) found.push(kind === undefined ? name as string : `${kind.toLowerCase()}.${name}`)
    }
  }
  return found.sort()
}

t.test('the decorators, each declared once', async (t) => {
  const found = await decorations()
  t.same(found, [...ABOUT_SESSIONS, ...OTHERS].sort())
  t.ok(found.length <= 22, `${found.length} in all`)
  t.ok(ABOUT_SESSIONS.length <= 4, `${ABOUT_SESSIONS.length} about sessions`)
})
