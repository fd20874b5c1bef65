// What `npm test`'s first step does about the programs the suite drives (test/helpers/programs.ts),
// decided apart from doing it so test/setup/programs.test.ts can check every case.
import { fallbackPackages, installCommand, suitePrograms } from '../helpers/programs.js'

export interface Machine {
  /** Whether a program is installed (on PATH or in the usual system directories). */
  found: (program: string) => boolean
  /** Debian's apt-get is there. */
  hasAptGet: boolean
  isRoot: boolean
  /** Whether the apt sources offer a package of this name (apt-cache madison). */
  inSources: (pkg: string) => boolean
}

export type ProgramsPlan =
  | { action: 'ready' }
  | { action: 'install', packages: string[], message: string }
  | { action: 'stop', message: string }

export function planPrograms (machine: Machine): ProgramsPlan {
  const missing = Object.keys(suitePrograms).filter((program) => !machine.found(program))
  if (missing.length === 0) return { action: 'ready' }
  const packages = [...new Set(missing.map((program) => packageFor(suitePrograms[program] ?? program, machine)))]
  const needed = `the tests drive a real ${missing.join(', ')}, not found on this machine`
  if (machine.hasAptGet && machine.isRoot) {
    return { action: 'install', packages, message: `npm test: installing ${packages.join(' ')} with apt-get: ${needed}.` }
  }
  const why = machine.hasAptGet ? 'installing needs root' : 'these are Debian\'s package names; install the same programs with this system\'s package manager'
  return { action: 'stop', message: `npm test: ${needed} (${why}). Install them, then run npm test again:\n  ${installCommand(packages, machine.isRoot)}` }
}

/** The package, or its fallback where the apt sources have no such package but have the fallback. */
function packageFor (pkg: string, machine: Machine): string {
  const fallback = fallbackPackages[pkg]
  return fallback !== undefined && machine.hasAptGet && !machine.inSources(pkg) && machine.inSources(fallback) ? fallback : pkg
}
