// The child's side of the protocol in child.ts: named handlers answer the parent's requests;
// `usage`, `gc`, the profiler and the event-loop delay monitor are common to every child.
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks'

/** The monitor's timer interval; its samples are this plus how late the timer ran. */
const LOOP_DELAY_RESOLUTION_MS = 10

type Handler = (message: Record<string, unknown>) => Promise<unknown> | unknown

export function serveParent (handlers: Record<string, Handler>, onStop: () => Promise<void>): void {
  // Connected only when asked for: an idle child carries no inspector session.
  let profiler: Session | undefined
  let loopDelay: ELDHistogram | undefined
  const all: Record<string, Handler> = {
    usage: () => ({ cpu: process.cpuUsage(), memory: process.memoryUsage() }),
    gc: async () => {
      // Several passes with pauses, so weak references and finalisers settle before RSS is read.
      for (let pass = 0; pass < 4; pass++) {
        globalThis.gc?.()
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return { cpu: process.cpuUsage(), memory: process.memoryUsage() }
    },
    // The profiler runs only around a measured window, so start-up (module loading through the
    // TypeScript loader) and sign-in do not drown the request path in the profile.
    profileStart: async () => {
      profiler = new Session()
      profiler.connect()
      await profiler.post('Profiler.enable')
      await profiler.post('Profiler.setSamplingInterval', { interval: 200 })
      await profiler.post('Profiler.start')
    },
    profileStop: async (message) => {
      if (profiler === undefined) throw new Error('the profiler was not started')
      const { profile } = await profiler.post('Profiler.stop')
      profiler.disconnect()
      profiler = undefined
      await writeFile(message.file as string, JSON.stringify(profile))
      return { file: message.file }
    },
    // How long the event loop was blocked while a measured window ran: the lateness of a timer
    // that should fire every LOOP_DELAY_RESOLUTION_MS (the interval itself taken off), in ms.
    loopDelayStart: () => {
      loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS })
      loopDelay.enable()
      return {}
    },
    loopDelayStop: () => {
      if (loopDelay === undefined) throw new Error('the event-loop delay monitor was not started')
      loopDelay.disable()
      const late = (nanoseconds: number): number => Math.max(0, nanoseconds / 1e6 - LOOP_DELAY_RESOLUTION_MS)
      const reading = { p50: late(loopDelay.percentile(50)), p99: late(loopDelay.percentile(99)), max: late(loopDelay.max), samples: loopDelay.count }
      loopDelay = undefined
      return reading
    },
    ...handlers
  }
  // An orphan would keep its ports and memory forever: a child dies with its parent.
  process.on('disconnect', () => process.exit(1))
  process.on('message', (message: { id: number, type: string } & Record<string, unknown>) => {
    if (message.type === 'stop') {
      // Exit explicitly: a lingering handle must not keep the child (and the benchmark) alive,
      // and --cpu-prof writes its profile on exit.
      onStop().finally(() => {
        process.send?.({ id: message.id, ok: true }, () => process.exit(0))
      })
      return
    }
    const handler = all[message.type]
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`unknown request ${message.type}`)
        return handler(message)
      })
      .then(
        (value) => process.send?.({ id: message.id, ok: true, value }),
        (error: unknown) => process.send?.({ id: message.id, ok: false, error: (error as Error).message })
      )
  })
}
