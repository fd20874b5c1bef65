// npx tsx bench/stampede.ts [--quick]: the refresh stampede alone. N requests needing a token
// hit an expired grant at once, on one instance (in-memory store) and on two instances sharing
// Redis; prints the refreshes the emulator saw (must be 1) and the latencies.
import { startBffStack } from './lib/stack.js'
import { startBenchRedis } from './lib/redis.js'
import { buildMediaBff } from './lib/build.js'
import { stampedeScenario, type StampedeResult } from './scenarios/stampede.js'

// Ctrl-C or a kill still runs the exit handlers that stop redis-server (children follow on
// their own when the IPC channel closes).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

const sizes = process.argv.includes('--quick') ? [100] : [100, 1000]
const results: StampedeResult[] = []
await buildMediaBff()
const redis = await startBenchRedis()
try {
  const alone = await startBffStack()
  try {
    results.push(...await stampedeScenario(alone, sizes, 1))
  } finally {
    await alone.stop()
  }
  const shared = await startBffStack({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'stampede:' })
  try {
    results.push(...await stampedeScenario(shared, sizes, 2))
  } finally {
    await shared.stop()
  }
} finally {
  await redis.stop()
}
console.log('| instances | store | requests | refreshes | reuse detections | succeeded | p50 | p99 | max |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const r of results) {
  console.log(`| ${r.instances} | ${r.store} | ${r.concurrency} | ${r.refreshes} | ${r.reuseDetections} | ${r.succeeded}/${r.concurrency} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.max.toFixed(1)} ms |`)
}
const failed = results.filter((r) => r.refreshes !== 1 || r.reuseDetections !== 0 || r.succeeded !== r.concurrency)
if (failed.length > 0) {
  console.error(`\n${failed.length} stampede(s) did not end with exactly one refresh and every request served`)
  process.exitCode = 1
}
