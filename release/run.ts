// Runs one program of a release (git, npm, the container engine) and gives back what it printed;
// a failure throws with the program's own last words. Nothing is run through a shell.
import { spawn } from 'node:child_process'

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Printed as it runs (a build's progress), besides being returned. */
  echo?: boolean
}

export async function run (command: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    if (options.echo === true) process.stderr.write(chunk)
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    if (options.echo === true) process.stderr.write(chunk)
  })
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', (error) => { reject(new Error(`cannot run ${command}: ${error.message}`)) })
    child.once('close', resolve)
  })
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${String(code)}:\n${(stderr || stdout).trim().split('\n').slice(-20).join('\n')}`)
  return stdout.trim()
}
