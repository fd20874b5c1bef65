// Waiting for something the emulator does later (a file becoming ready, a webhook arriving):
// look again every few milliseconds until it is there or a generous deadline has passed, so a
// test never depends on how fast a loaded machine happens to be.
import { setTimeout as sleep } from 'node:timers/promises'

export async function pollUntil<T> (what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; last seen ${JSON.stringify(value)}`)
    await sleep(20)
  }
}
