// Prints the top self-time functions of .cpuprofile files:
//   npx tsx bench/profile-top.ts bench/profiles/*.cpuprofile
import { topSelfTime } from './lib/profile-top.js'

for (const file of process.argv.slice(2)) {
  const { functions, packages, totalMs } = await topSelfTime(file, 25)
  console.log(`\n${file}: ${totalMs.toFixed(0)} ms busy`)
  console.log('\nby package')
  for (const entry of packages) console.log(`${(entry.share * 100).toFixed(1).padStart(6)}%  ${entry.ms.toFixed(0).padStart(7)} ms  ${entry.name}`)
  console.log('\nby function (self time)')
  for (const entry of functions) console.log(`${(entry.share * 100).toFixed(1).padStart(6)}%  ${entry.ms.toFixed(0).padStart(7)} ms  ${entry.name}  ${entry.where}`)
}
