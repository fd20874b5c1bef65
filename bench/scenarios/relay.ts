// 2. GET /api/folders/0/contents, the relay: media-bff (session cookie → the user's token →
// {tenant}/api/folders/0/contents, links in the answer rewritten to media-bff's /api/) against the
// bare Fastify+undici hop (the same upstream call with a fixed Bearer token, the answer streamed
// back untouched: the reference) and the emulator called directly with a Bearer token (the
// floor). Alice's home folder holds `plan.relay.files` small files first, so the answer is a
// listing of a few kilobytes with a link per file, not an empty object.
//
// A GET changes nothing at the emulator, so all three runs last the same time; their order turns
// round by round. Any answer but a 200 with the seeded listing, from any of the three, is an error.
//
// Then the worst case a tenant can send: a hostile tenant (lib/hostile-tenant-child.ts) whose
// answer is 4 MiB of strings carrying its host, relayed by a media-bff of its own, with
// media-bff's event-loop delay measured during both that run and the plain listing's.
import { request } from 'undici'
import type { BffStack, EmulatorProcess } from '../lib/stack.js'
import { startBareHop, startHostileTenantStack } from '../lib/stack.js'
import { runLoad, runLoadWatching, type LoadOptions, type LoadResult } from '../lib/load.js'
import type { BenchChild, LoopDelay } from '../lib/child.js'
import { signedInCookie } from '../lib/sign-in.js'
import { Browser } from '../../test/helpers/http-client.js'
import { signInWithoutConsent } from '../../test/helpers/sign-in.js'
import { bffFolderContents, directFolderContents } from '../lib/targets.js'
import { profiled } from '../lib/profiling.js'
import type { Plan } from '../lib/plan.js'
import { aliceAccessToken, medianResult } from './register.js'

export interface RelayResult {
  connections: number
  files: number
  /** Answer sizes in bytes: media-bff's (links rewritten), the emulator's (the hop's is the same). */
  bffBytes: number
  directBytes: number
  /** CPU watched: [media-bff, emulator]. */
  bff: LoadResult
  /** CPU watched: [hop, emulator]. */
  hop: LoadResult
  /** CPU watched: [emulator]. */
  direct: LoadResult
  /** media-bff's event-loop delay during its plain-listing runs (the median round's by p99). */
  bffLoopDelay: LoopDelay
  hostile: HostileRelayResult
}

export interface HostileRelayResult {
  connections: number
  /** The hostile answer's size and how many strings in it carry the tenant's host. */
  bytes: number
  strings: number
  /** CPU watched: [media-bff]. */
  bff: LoadResult
  loopDelay: LoopDelay
}

/** `run` with the event-loop delay of `child` measured meanwhile. */
async function watchingLoop<T> (child: BenchChild, run: () => Promise<T>): Promise<[T, LoopDelay]> {
  await child.call('loopDelayStart')
  const result = await run()
  return [result, await child.call<LoopDelay>('loopDelayStop')]
}

/** The hostile tenant's answer through media-bff, after a warm-up; every answer must be a 200. */
async function hostileRelay (plan: Plan): Promise<HostileRelayResult> {
  const hostile = await startHostileTenantStack()
  try {
    const browser = new Browser(hostile.bff.url)
    await signInWithoutConsent(browser)
    const cookie = browser.cookieHeader()
    if (cookie === undefined) throw new Error('no session with the hostile tenant')
    const target = { ...bffFolderContents(hostile.bff.url, cookie), connections: plan.relay.hostileConnections }
    const first = await probe(target)
    if (first.status !== 200 || Buffer.byteLength(first.text) !== hostile.tenant.bytes) throw new Error(`media-bff answered the hostile listing with ${first.status}, ${Buffer.byteLength(first.text)} bytes: ${first.text.slice(0, 300)}`)
    await runLoad({ ...target, duration: 1 })
    const [bff, loopDelay] = await watchingLoop(hostile.bff.child, async () => await runLoadWatching({ ...target, duration: plan.relay.hostileSeconds }, [hostile.bff.child]))
    if (bff.failed > 0) throw new Error(`${bff.failed} hostile relays failed`)
    return { connections: plan.relay.hostileConnections, bytes: hostile.tenant.bytes, strings: hostile.tenant.strings, bff, loopDelay }
  } finally {
    await hostile.stop()
  }
}

interface Probe { status: number, text: string }

async function probe (options: LoadOptions): Promise<Probe> {
  const answer = await request(options.url, { method: 'GET', headers: options.headers })
  return { status: answer.statusCode, text: await answer.body.text() }
}

/** The listing's files, or an error naming who answered what. */
function filesOf (who: string, answer: Probe): unknown[] {
  if (answer.status !== 200) throw new Error(`${who} answered GET /api/folders/0/contents with ${answer.status}: ${answer.text.slice(0, 300)}`)
  const files = (JSON.parse(answer.text) as { files?: unknown }).files
  if (!Array.isArray(files)) throw new Error(`${who}'s folder listing has no files array: ${answer.text.slice(0, 300)}`)
  return files
}

/** Uploads `count` small files into alice's home folder (single-call upload, her private token). */
export async function seedFiles (emulator: EmulatorProcess, count: number): Promise<void> {
  const alice = emulator.users.find((user) => user.name === 'alice')
  if (alice === undefined) throw new Error('the emulator has no user alice')
  for (let i = 0; i < count; i++) {
    const form = new FormData()
    form.set('folder_id', '0')
    form.set('title', `Bench clip ${i + 1}`)
    form.set('file', new Blob([`bench file ${i + 1}\n`.repeat(8)], { type: 'video/mp4' }), `bench-clip-${i + 1}.mp4`)
    const answer = await fetch(`${emulator.baseUrl}/api/upload/file`, { method: 'POST', headers: { authorization: `Private-Token ${alice.privateToken}` }, body: form })
    if (!answer.ok) throw new Error(`seeding a file answered ${answer.status}: ${await answer.text()}`)
  }
}

/** `store` names the stack's store in its profile's name (relay-folder-contents, relay-redis-folder-contents). */
export async function relayScenario (stack: BffStack, plan: Plan, store: 'memory' | 'redis' = 'memory'): Promise<RelayResult> {
  const { connections, seconds, rounds, files } = plan.relay
  // An emptied emulator (the register runs leave thousands of registrations in it, and its
  // listing walks them all), one grant, the seeded folder.
  await stack.restartEmulator()
  const cookie = await signedInCookie(stack.bff.url)
  const token = await aliceAccessToken(stack.emulator)
  await seedFiles(stack.emulator, files)

  const bffTarget = { ...bffFolderContents(stack.bff.url, cookie), connections }
  const directTarget = { ...directFolderContents(stack.emulator.baseUrl, token), connections }
  const direct = await probe(directTarget)
  const listed = filesOf('the emulator', direct).length
  if (listed !== files) throw new Error(`the emulator lists ${listed} files in alice's home folder, not ${files}`)
  const fromBff = await probe(bffTarget)
  const relayed = filesOf('media-bff', fromBff).length
  if (relayed !== files) throw new Error(`media-bff's relayed listing has ${relayed} files, the emulator's ${files}`)

  const hop = await startBareHop(stack.emulator, token)
  try {
    // The same request as media-bff's, cookie included; the hop ignores it.
    const hopTarget = { ...bffFolderContents(hop.url, cookie), connections }
    if (filesOf('the bare hop', await probe(hopTarget)).length !== files) throw new Error('the bare hop\'s listing differs from the emulator\'s')
    // Warm-up: JIT and connection pools.
    await runLoad({ ...bffTarget, duration: 1 })
    await runLoad({ ...hopTarget, duration: 1 })
    await runLoad({ ...directTarget, duration: 1 })

    const bffs: LoadResult[] = []
    const delays: LoopDelay[] = []
    const hops: LoadResult[] = []
    const directs: LoadResult[] = []
    for (let round = 0; round < rounds; round++) {
      const runs: Array<() => Promise<void>> = [
        async () => {
          const [result, delay] = await watchingLoop(stack.bff.child, async () => await profiled(plan.profile && round === 0, stack.bff.child, `relay-${store === 'redis' ? 'redis-' : ''}folder-contents`, async () =>
            await runLoadWatching({ ...bffTarget, duration: seconds }, [stack.bff.child, stack.emulator.child])))
          bffs.push(result)
          delays.push(delay)
        },
        async () => { hops.push(await runLoadWatching({ ...hopTarget, duration: seconds }, [hop.child, stack.emulator.child])) },
        async () => { directs.push(await runLoadWatching({ ...directTarget, duration: seconds }, [stack.emulator.child])) }
      ]
      // Each side takes its turn at going first.
      for (let i = 0; i < runs.length; i++) await (runs[(round + i) % runs.length] as () => Promise<void>)()
    }
    await hop.child.stop()
    return {
      connections,
      files,
      bffBytes: Buffer.byteLength(fromBff.text),
      directBytes: Buffer.byteLength(direct.text),
      bff: medianResult(bffs),
      hop: medianResult(hops),
      direct: medianResult(directs),
      bffLoopDelay: delays.sort((a, b) => a.p99 - b.p99)[Math.floor(delays.length / 2)] as LoopDelay,
      hostile: await hostileRelay(plan)
    }
  } finally {
    await hop.child.stop()
  }
}
