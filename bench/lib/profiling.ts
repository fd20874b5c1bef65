// --profile: the CPU profiler runs in a server process only during one measured window, and the
// profile is written to bench/profiles/<name>.cpuprofile (open it in Chrome DevTools, or list its
// top functions with bench/profile-top.ts).
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { BenchChild } from './child.js'

export const profilesDir = fileURLToPath(new URL('../profiles/', import.meta.url))

/** Profiled runs, in order, for the report. */
export const writtenProfiles: Array<{ name: string, file: string }> = []

export async function profiled<T> (enabled: boolean, child: BenchChild, name: string, run: () => Promise<T>): Promise<T> {
  if (!enabled) return await run()
  await mkdir(profilesDir, { recursive: true })
  await child.call('profileStart')
  try {
    return await run()
  } finally {
    const file = `${profilesDir}${name}.cpuprofile`
    await child.call('profileStop', { file })
    writtenProfiles.push({ name, file })
  }
}
