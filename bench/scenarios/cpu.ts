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

export async function cpuScenario (stack: BffStack, plan: Plan): Promise<CpuResult> {
  await stack.restartEmulator()
  const cookie = await signedInCookie(stack.bff.url)
  const bffBefore = await stack.bff.child.usage()
  const emulatorBefore = await stack.emulator.child.usage()
  // Never profiled: the profiler's own cost would land in the figure.
  const result = await runLoad({ ...bffRegister(stack.bff.url, cookie), connections: CONNECTIONS, amount: plan.cpuRegistrations })
  const bffAfter = await stack.bff.child.usage()
  const emulatorAfter = await stack.emulator.child.usage()
  const per1000 = (micros: number): number => micros / 1000 / result.ok * 1000
  return {
    registrations: result.ok,
    connections: CONNECTIONS,
    bffUserMs: per1000(bffAfter.cpu.user - bffBefore.cpu.user),
    bffSystemMs: per1000(bffAfter.cpu.system - bffBefore.cpu.system),
    emulatorMs: per1000(emulatorAfter.cpu.user + emulatorAfter.cpu.system - emulatorBefore.cpu.user - emulatorBefore.cpu.system)
  }
}
