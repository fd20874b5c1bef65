// media-bff built as it ships (`npm run build`: tsc into dist/, the demo and the browser module
// bundled), for the benchmark's media-bff processes to load: the figures are those of the code
// the image runs.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const root = new URL('../../', import.meta.url)

/** Runs `npm run build` (several seconds); the benchmark does so before it starts anything. */
export async function buildMediaBff (): Promise<void> {
  await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: fileURLToPath(root) })
}

/** A module of the built media-bff, by its path under dist/ (`src/app.js`). */
export async function builtModule<T> (path: string): Promise<T> {
  return await import(new URL(`dist/${path}`, root).href) as T
}
