// Finds the real programs the tests drive. A missing one fails the test with the package to
// install: tests never skip because a collaborator is absent.
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

const debianPackage: Record<string, string> = {
  'redis-server': 'redis-server',
  'redis-cli': 'redis-tools',
  nginx: 'nginx',
  chromium: 'chromium',
  openssl: 'openssl'
}

const extraDirs = ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin', '/sbin']

export function requireProgram (name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...extraDirs]
  for (const dir of dirs) {
    if (dir === '') continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  const pkg = debianPackage[name] ?? name
  throw new Error(`${name} is needed by this test but was not found on PATH. Install it: apt-get update && apt-get install -y ${pkg}`)
}
