// media-bff compiled as it ships (`tsc -p tsconfig.build.json`, the compile step of `npm run
// build`), for the benchmark's media-bff processes to load: the figures are those of the code the
// image runs.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const root = new URL('../../', import.meta.url)

/** Compiles src/, routes/ and plugins/ into dist/ (a few seconds); the benchmark runs it first. */
export async function buildMediaBff (): Promise<void> {
  const tsc = fileURLToPath(new URL('node_modules/typescript/bin/tsc', root))
  await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: fileURLToPath(root) })
}

/** A module of the compiled media-bff, by its path under dist/ (`src/app.js`). */
export async function builtModule<T> (path: string): Promise<T> {
  return await import(new URL(`dist/${path}`, root).href) as T
}
