// Finds the real programs the tests drive. A missing one fails the test with the command that
// installs it: tests never skip because a collaborator is absent. `npm test` installs them
// beforehand where it can (test/setup/programs.ts).
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

/** Every program a test or benchmark asks requireProgram for, with its Debian package. */
export const suitePrograms: Record<string, string> = {
  'redis-server': 'redis-server',
  nginx: 'nginx',
  chromium: 'chromium',
  openssl: 'openssl',
  curl: 'curl',
  kubectl: 'kubectl',
  // Both from Debian's prometheus package: the rules' checker and a real server scraping replicas.
  promtool: 'prometheus',
  prometheus: 'prometheus',
  // A local image registry: a release's signature and attestation beside an image in it
  // (test/release/signature.test.ts), and the image itself in `npm run test:container`.
  'docker-registry': 'docker-registry'
}

/**
 * A package to install instead where the apt sources have none of the first name: Debian has no
 * `kubectl` (Kubernetes's own apt repository does), but its `kubernetes-client` is an older kubectl.
 */
export const fallbackPackages: Record<string, string> = {
  kubectl: 'kubernetes-client'
}

// nginx is in /usr/sbin, which is not on every user's PATH.
const extraDirs = ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin', '/sbin']

export function findProgram (name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...extraDirs]
  for (const dir of dirs) {
    if (dir === '') continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  return undefined
}

/** The command that installs these Debian packages, with sudo unless already root. */
export function installCommand (packages: string[], asRoot = process.getuid?.() === 0): string {
  const sudo = asRoot ? '' : 'sudo '
  return `${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${packages.join(' ')}`
}

export function requireProgram (name: string): string {
  const found = findProgram(name)
  if (found !== undefined) return found
  const pkg = suitePrograms[name] ?? name
  const fallback = fallbackPackages[pkg]
  const otherwise = fallback === undefined ? '' : ` (where the apt sources have no ${pkg}: ${installCommand([fallback])})`
  throw new Error(`${name} is needed by this test but was not found on PATH. Install it: ${installCommand([pkg])}${otherwise}`)
}
