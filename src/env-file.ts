// A .env file in the working directory, read by `npm start` and `npm run serve` when present (the
// format of .env.example: NAME=value lines, # comments). The environment wins: a variable set
// there is never replaced by the file's, so a container's or a shell's settings keep their say.
// Node's own parser (util.parseEnv), no dependency.
import { readFileSync } from 'node:fs'
import { parseEnv } from 'node:util'
import type { Env } from './env-reader.js'
import { ConfigError } from './config.js'

/** `env` with the file's variables added under it; `env` itself when there is no file. */
export function withEnvFile (env: Env, path = '.env'): Env {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return env
    throw new ConfigError([`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`])
  }
  const fromFile = parseEnv(text)
  const merged: Env = { ...env }
  for (const [name, value] of Object.entries(fromFile)) {
    if (merged[name] === undefined) merged[name] = value
  }
  return merged
}
