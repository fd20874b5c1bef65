// 12. What tracing costs: POST /uploads/register and the relayed GET /api/folders/0/contents
// through media-bff with tracing off, on sampling every trace, and on sampling one in ten (the
// ratio sampler: most requests make no span that is kept), beside the bare hop, the same
// requests as the register and relay scenarios. Three media-bff instances in front of one
// emulator, alike but for the OTEL_* variables; the traced ones export over OTLP/HTTP protobuf
// (the default) with the SDK's default batching to a sink that discards (lib/otlp-sink-child.ts).
//
// Registration keeps the register scenario's fairness: each run starts from an emptied emulator
// with one fresh grant, the first of a round runs for its time and the others send as many
// requests as it managed. The relayed GET changes nothing, so those runs last the same time.
// The order of the four turns round by round.
import type { BffStack, ServerFlags, ServerProcess } from '../lib/stack.js'
import { startBareHop, startOtlpSink } from '../lib/stack.js'
import { runLoad, runLoadWatching, type LoadOptions, type LoadResult } from '../lib/load.js'
import { signedInCookie } from '../lib/sign-in.js'
import { bffFolderContents, bffRegister } from '../lib/targets.js'
import type { Plan } from '../lib/plan.js'
import { aliceAccessToken, medianResult } from './register.js'
import { seedFiles } from './relay.js'

export const TRACING_VARIANTS = ['off', 'on, every trace', 'on, 1 in 10', 'bare hop'] as const
export type TracingVariant = typeof TRACING_VARIANTS[number]

export interface TracingRow {
  variant: TracingVariant
  /** CPU watched: [server, emulator]. */
  register: LoadResult
  relay: LoadResult
}

export interface TracingResult {
  connections: number
  rows: TracingRow[]
  /** Exports the sink received: the traced instances were sending. */
  exports: number
}

export async function tracingScenario (stack: BffStack, plan: Plan, flags: ServerFlags = {}): Promise<TracingResult> {
  const { connections, seconds, rounds } = plan.tracing
  const sink = await startOtlpSink()
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }
  const instances: Record<Exclude<TracingVariant, 'bare hop'>, ServerProcess> = {
    off: stack.bff,
    'on, every trace': await stack.addInstance({ ...traced, OTEL_TRACES_SAMPLER: 'always_on' }),
    'on, 1 in 10': await stack.addInstance({ ...traced, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })
  }
  await stack.restartEmulator()
  await signedInCookie(stack.bff.url)
  const hop = await startBareHop(stack.emulator, await aliceAccessToken(stack.emulator), flags)
  try {
    const results = new Map<TracingVariant, { register: LoadResult[], relay: LoadResult[] }>(TRACING_VARIANTS.map((variant) => [variant, { register: [], relay: [] }]))
    /** The server a variant's requests go to, and its session cookie (the hop ignores it). */
    const target = async (variant: TracingVariant): Promise<{ url: string, cookie: string, watched: ServerProcess }> => {
      if (variant === 'bare hop') {
        const cookie = await signedInCookie(stack.bff.url)
        await hop.setToken(await aliceAccessToken(stack.emulator))
        return { url: hop.url, cookie, watched: hop }
      }
      const instance = instances[variant]
      return { url: instance.url, cookie: await signedInCookie(instance.url), watched: instance }
    }

    // Warm-up: JIT, pools and the exporters' first batches.
    for (const variant of TRACING_VARIANTS) {
      const { url, cookie } = await target(variant)
      await runLoad({ ...bffRegister(url, cookie), connections, duration: 1 })
    }

    for (let round = 0; round < rounds; round++) {
      const order = TRACING_VARIANTS.map((_, i) => TRACING_VARIANTS[(round + i) % TRACING_VARIANTS.length] as TracingVariant)
      let limit: Pick<LoadOptions, 'duration' | 'amount'> = { duration: seconds }
      for (const variant of order) {
        await stack.restartEmulator()
        const { url, cookie, watched } = await target(variant)
        const result = await runLoadWatching({ ...bffRegister(url, cookie), connections, ...limit }, [watched.child, stack.emulator.child])
        results.get(variant)?.register.push(result)
        if ('duration' in limit) limit = { amount: Math.max(result.ok, connections) }
      }
    }

    await stack.restartEmulator()
    const relayTargets = new Map<TracingVariant, { url: string, cookie: string, watched: ServerProcess }>()
    for (const variant of TRACING_VARIANTS) relayTargets.set(variant, await target(variant))
    await seedFiles(stack.emulator, plan.relay.files)
    for (const variant of TRACING_VARIANTS) {
      const { url, cookie } = relayTargets.get(variant) as { url: string, cookie: string }
      await runLoad({ ...bffFolderContents(url, cookie), connections, duration: 1 })
    }
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < TRACING_VARIANTS.length; i++) {
        const variant = TRACING_VARIANTS[(round + i) % TRACING_VARIANTS.length] as TracingVariant
        const { url, cookie, watched } = relayTargets.get(variant) as { url: string, cookie: string, watched: ServerProcess }
        results.get(variant)?.relay.push(await runLoadWatching({ ...bffFolderContents(url, cookie), connections, duration: seconds }, [watched.child, stack.emulator.child]))
      }
    }

    const rows = TRACING_VARIANTS.map((variant) => {
      const runs = results.get(variant) ?? { register: [], relay: [] }
      const failed = [...runs.register, ...runs.relay].reduce((sum, run) => sum + run.failed, 0)
      if (failed > 0) throw new Error(`${failed} requests failed with tracing ${variant}`)
      return { variant, register: medianResult(runs.register), relay: medianResult(runs.relay) }
    })
    return { connections, rows, exports: await sink.exports() }
  } finally {
    await hop.child.stop()
    await sink.child.stop()
  }
}
