// A file of variables under the environment (the format of .env.example: NAME=value lines,
// # comments): the one ENV_FILE names, or else, except in production, a .env in the working
// directory when there is one. In production nothing is read that nobody asked for: a stray .env
// in the working directory could otherwise set any variable the environment left unset (the token
// endpoint included). The environment wins: a variable set there is never replaced by the file's,
// so a container's or a shell's settings keep their say. What was taken from the file is named,
// for the start-up log. Parsed by dotenv: Node 24's own util.parseEnv reads a line whose value is
// only spaces (`NAME=  `) as the start of a value that swallows the next line.
import { readFileSync } from 'node:fs'
import { parse as parseEnv } from 'dotenv'
import type { Env } from './env-reader.js'
import { ConfigError } from './config.js'

export interface EnvWithFile {
  /** The environment, with the file's variables added under it. */
  env: Env
  /** The file read, if any. */
  file: string | undefined
  /** The names of the variables the file set (the environment had none of them). */
  taken: string[]
}

/**
 * The variables without those set blank: every reader takes a blank value as unset
 * (EnvReader.raw), and a blank one left in would replace a default given beside it, as `npm
 * start` gives the demo's secrets and the emulator's client.
 */
export function withoutBlanks (env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value === undefined || value.trim() !== ''))
}

export function withEnvFile (env: Env, defaultFile = '.env'): EnvWithFile {
  const named = env.ENV_FILE?.trim()
  const file = named !== undefined && named !== '' ? named : env.NODE_ENV === 'production' ? undefined : defaultFile
  if (file === undefined) return { env, file: undefined, taken: [] }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Only the default may be missing: a file named in ENV_FILE that is not there is a mistake.
    if (code === 'ENOENT' && file === defaultFile && named === undefined) return { env, file: undefined, taken: [] }
    throw new ConfigError([`${named === undefined ? file : `ENV_FILE: ${file}`}: cannot be read (${code ?? (error as Error).message})`])
  }
  const merged: Env = { ...env }
  const taken: string[] = []
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (merged[name] !== undefined) continue
    merged[name] = value
    taken.push(name)
  }
  return { env: merged, file, taken }
}
