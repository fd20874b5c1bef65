// 5. media-bff's CPU time per 1 000 registrations: user + system time of the media-bff process
// alone (process.cpuUsage() read in its own child before and after). The load generator runs in
// the orchestrating process and the emulator in another child, so neither is counted; the
// emulator's own figure is reported beside it as the floor's cost.
import type { BffStack } from '../lib/stack.js'
import { runLoad } from '../lib/load.js'
import { signedInCookie } from '../lib/sign-in.js'
import { bffRegister } from '../lib/targets.js'
import type { Plan } from '../lib/plan.js'

export interface CpuResult {
  registrations: number
  connections: number
  /** Milliseconds of CPU per 1 000 successful registrations. */
  bffUserMs: number
  bffSystemMs: number
  emulatorMs: number
}

const CONNECTIONS = 10
// The emulator is emptied every this many registrations: its cost per registration grows with
// the registrations it holds, and its figure is reported as the floor's cost.
const CHUNK = 1000

export async function cpuScenario (stack: BffStack, plan: Plan): Promise<CpuResult> {
  let registrations = 0
  let bffUser = 0
  let bffSystem = 0
  let emulatorTotal = 0
  for (let done = 0; done < plan.cpuRegistrations; done += CHUNK) {
    await stack.restartEmulator()
    const cookie = await signedInCookie(stack.bff.url)
    const bffBefore = await stack.bff.child.usage()
    const emulatorBefore = await stack.emulator.child.usage()
    // Never profiled: the profiler's own cost would land in the figure.
    const result = await runLoad({ ...bffRegister(stack.bff.url, cookie), connections: CONNECTIONS, amount: Math.min(CHUNK, plan.cpuRegistrations - done) })
    const bffAfter = await stack.bff.child.usage()
    const emulatorAfter = await stack.emulator.child.usage()
    registrations += result.ok
    bffUser += bffAfter.cpu.user - bffBefore.cpu.user
    bffSystem += bffAfter.cpu.system - bffBefore.cpu.system
    emulatorTotal += emulatorAfter.cpu.user + emulatorAfter.cpu.system - emulatorBefore.cpu.user - emulatorBefore.cpu.system
  }
  const per1000 = (micros: number): number => micros / 1000 / Math.max(1, registrations) * 1000
  return {
    registrations,
    connections: CONNECTIONS,
    bffUserMs: per1000(bffUser),
    bffSystemMs: per1000(bffSystem),
    emulatorMs: per1000(emulatorTotal)
  }
}
