// Runs an emulator in a process of its own, for tests that measure it (memory) without the test
// runner's own allocations in the figures. Prints one JSON line with its origins and alice's
// private token, then serves until SIGTERM.
import { startEmulator } from '../../emulator/index.js'

const emulator = await startEmulator({ apiPort: 0, uploadPort: 0 })
const alice = emulator.users.find((user) => user.name === 'alice')
process.stdout.write(`${JSON.stringify({ apiOrigin: emulator.apiOrigin, uploadOrigin: emulator.uploadOrigin, privateToken: alice?.privateToken })}\n`)
process.once('SIGTERM', () => {
  emulator.stop().then(() => { process.exitCode = 0 }, () => { process.exitCode = 1 })
})
