// Spawning helpers for tests that run programs: wait for a line of output, and stop a child
// by its own pid, waiting for its exit code.
import type { ChildProcess } from 'node:child_process'

/** Resolves with everything printed to stdout once `done` accepts it; rejects on exit or timeout. */
export async function waitForOutput (child: ChildProcess, done: (stdout: string) => boolean, timeoutMs = 20_000): Promise<string> {
  return await new Promise((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    const finish = (error?: Error): void => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onError)
      child.off('exit', onExit)
      if (error === undefined) resolve(stdout)
      else reject(error)
    }
    const onData = (chunk: Buffer): void => {
      stdout += chunk.toString('utf8')
      if (done(stdout)) finish()
    }
    const onError = (chunk: Buffer): void => { stderr += chunk.toString('utf8') }
    const onExit = (code: number | null): void => { finish(new Error(`the program exited (${String(code)}) before it was ready:\n${stdout}\n${stderr}`)) }
    const timer = setTimeout(() => { finish(new Error(`the program was not ready within ${timeoutMs} ms:\n${stdout}\n${stderr}`)) }, timeoutMs)
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onError)
    child.on('exit', onExit)
  })
}

/** Sends the signal to this child only and resolves with its exit code (null when killed by a signal). */
export async function stopChild (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the program did not exit within ${timeoutMs} ms of ${signal}`))
    }, timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
    child.kill(signal)
  })
}
