// Reads a V8 .cpuprofile (node --cpu-prof) and lists the functions with the most self time, and
// the same grouped by package, which is usually where the answer is.
import { readFile } from 'node:fs/promises'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
}

interface Profile { nodes: ProfileNode[], samples: number[], timeDeltas: number[] }

export interface SelfTime { name: string, where: string, ms: number, share: number }

export async function topSelfTime (file: string, limit = 15): Promise<{ functions: SelfTime[], packages: SelfTime[], totalMs: number }> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const selfUs = new Map<number, number>()
  profile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0))
  })
  const functions = new Map<string, SelfTime>()
  const packages = new Map<string, SelfTime>()
  let totalUs = 0
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame
    // Shares are of busy time: waiting for I/O is not a cost of any function.
    if (frame === undefined || frame.functionName === '(idle)') continue
    totalUs += us
    const where = shortUrl(frame.url)
    const key = `${frame.functionName}@${where}:${frame.lineNumber + 1}`
    const fn = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where: `${where}:${frame.lineNumber + 1}`, ms: 0, share: 0 }
    fn.ms += us / 1000
    functions.set(key, fn)
    const pkg = packageOf(frame.url, frame.functionName)
    const group = packages.get(pkg) ?? { name: pkg, where: '', ms: 0, share: 0 }
    group.ms += us / 1000
    packages.set(pkg, group)
  }
  const ranked = (map: Map<string, SelfTime>): SelfTime[] => [...map.values()]
    .map((entry) => ({ ...entry, share: totalUs === 0 ? 0 : entry.ms * 1000 / totalUs }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit)
  return { functions: ranked(functions), packages: ranked(packages), totalMs: totalUs / 1000 }
}

/** A URL made short and machine-independent: package-relative or repository-relative. */
function shortUrl (url: string): string {
  if (url === '') return '(native)'
  const modules = url.lastIndexOf('/node_modules/')
  if (modules !== -1) return url.slice(modules + '/node_modules/'.length)
  for (const root of ['/src/', '/plugins/', '/routes/', '/bench/', '/test/']) {
    const at = url.lastIndexOf(root)
    if (at !== -1) return url.slice(at + 1)
  }
  return url.replace(/^file:\/\//, '')
}

function packageOf (url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)'
  if (url.startsWith('node:')) return 'node core'
  const modules = url.lastIndexOf('/node_modules/')
  if (modules !== -1) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/')
    return parts[0]?.startsWith('@') === true ? `${parts[0]}/${parts[1] ?? ''}` : parts[0] ?? url
  }
  const short = shortUrl(url)
  return short.split('/')[0] ?? short
}
