import { startBffStack } from './lib/stack.js'
import { signInMany } from './lib/sign-in.js'
import type { ChildUsage } from './lib/child.js'
const flags = (process.env.FLAGS ?? '--expose-gc --min-semi-space-size=16 --max-semi-space-size=16').split(' ')
const stack = await startBffStack({}, {}, { nodeFlags: flags })
const show = (label: string, u: ChildUsage, base?: ChildUsage): void => {
  const m = u.memory; const b = base?.memory
  const d = (k: keyof NodeJS.MemoryUsage): string => `${k} ${(m[k] / 1e6).toFixed(1)}${b ? ` (+${((m[k] - b[k]) / 1e6).toFixed(1)})` : ''}`
  console.log(label.padEnd(10), d('rss'), d('heapTotal'), d('heapUsed'), d('external'), d('arrayBuffers'))
}
await signInMany(stack.bff.url, 200, 32)
const base = await stack.bff.child.call<ChildUsage>('gc')
show('base', base)
let total = 0
for (let i = 0; i < 10; i++) {
  await stack.restartEmulator()
  await signInMany(stack.bff.url, 1000, 32); total += 1000
  show(`+${total}`, await stack.bff.child.call<ChildUsage>('gc'), base)
}
await stack.stop()
