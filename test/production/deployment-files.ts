// Reads docker/Dockerfile and docker/compose.yaml the way Docker would need them, for tests that
// check them without a Docker engine: the Dockerfile as stages of instructions, compose.yaml
// parsed with `yaml` and its ${VAR} references filled in from an environment.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const dockerDir = fileURLToPath(new URL('../../docker/', import.meta.url))
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

export interface Instruction {
  keyword: string
  args: string
}

export interface Stage {
  image: string
  name: string | undefined
  instructions: Instruction[]
  /** Instructions with this keyword, in order. */
  all: (keyword: string) => Instruction[]
}

export function parseDockerfile (text: string): Stage[] {
  const stages: Stage[] = []
  // ARGs before the first FROM: what FROM lines may name as ${NAME} (their defaults).
  const globals = new Map<string, string>()
  let pending = ''
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    // Comment lines may sit even inside a continued instruction; Docker drops them.
    if (line.startsWith('#') || (line === '' && pending === '')) continue
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `
      continue
    }
    const full = `${pending}${line}`.trim()
    pending = ''
    if (full === '') continue
    const at = full.search(/\s/)
    const instruction = { keyword: full.slice(0, at).toUpperCase(), args: full.slice(at + 1).trim() }
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name = '', value = ''] = instruction.args.split('=')
      globals.set(name, value)
    } else if (instruction.keyword === 'FROM') {
      const [written = '', as, name] = instruction.args.split(/\s+/)
      const image = written.replace(/\$\{(\w+)\}/g, (_whole, variable: string) => globals.get(variable) ?? '')
      const stage: Stage = {
        image,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
        all: (keyword) => stage.instructions.filter((candidate) => candidate.keyword === keyword)
      }
      stages.push(stage)
    } else {
      const stage = stages.at(-1)
      if (stage === undefined) throw new Error(`${instruction.keyword} before any FROM`)
      stage.instructions.push(instruction)
    }
  }
  return stages
}

/** The JSON (exec) form of CMD, ENTRYPOINT or HEALTHCHECK's CMD; undefined for the shell form. */
export function execForm (args: string): string[] | undefined {
  const json = /^(?:(?:--\S+\s+)*CMD\s+)?(\[.*\])$/s.exec(args)?.[1]
  return json === undefined ? undefined : JSON.parse(json) as string[]
}

export interface ComposeService {
  image?: string
  build?: { context: string, dockerfile: string }
  command?: string[]
  environment?: Record<string, unknown>
  env_file?: string | string[]
  ports?: string[]
  volumes?: string[]
  depends_on?: Record<string, { condition: string }>
  networks?: string[] | Record<string, { ipv4_address?: string } | null>
  healthcheck?: { test: string[] }
  restart?: string
}

export interface ComposeFile {
  services: Record<string, ComposeService>
  networks?: Record<string, { ipam?: { config?: Array<{ subnet?: string }> } }>
  volumes?: Record<string, unknown>
}

export async function readComposeFile (): Promise<ComposeFile> {
  return parse(await readFile(`${dockerDir}compose.yaml`, 'utf8')) as ComposeFile
}

/** Compose's interpolation of ${VAR}, ${VAR:-default} and ${VAR:?error} ($$ is a literal $). */
export function interpolate (value: string, vars: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-?])([^}]*))?\}/g, (whole, name: string | undefined, kind: string | undefined, word: string | undefined) => {
    if (name === undefined) return '$'
    const found = vars[name]
    if (found !== undefined && found !== '') return found
    if (kind === '?') throw new Error(`${name}: ${word ?? 'is required'}`)
    return kind === '-' ? word ?? '' : ''
  })
}

/** A service's `environment` as the container gets it (strings, references filled in). */
export function serviceEnv (service: ComposeService, vars: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(service.environment ?? {})) {
    if (typeof value !== 'string') throw new Error(`${name} is a YAML ${typeof value}; quote it so it reaches the container as written`)
    env[name] = interpolate(value, vars)
  }
  return env
}

/** The variables a KEY=value env file sets (comments and blank lines skipped). */
export function parseEnvFile (text: string): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim())
    if (match !== null) vars[match[1] ?? ''] = match[2] ?? ''
  }
  return vars
}
