// The media service emulator in a process of its own: its CPU is never counted as media-bff's,
// and it competes for the cores exactly as a separate upstream would. Tokens, counters and the
// runtime configuration are reached through its /__emulator hooks; this starts, restarts and
// stops it.
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js'
import { serveParent } from './child-host.js'

let emulator: RunningEmulator | undefined
let options: EmulatorOptions = {}

const start = async (): Promise<object> => {
  emulator = await startEmulator(options)
  return {
    baseUrl: emulator.baseUrl,
    uploadOrigin: emulator.uploadOrigin,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    users: emulator.users.map((user) => ({ name: user.name, privateToken: user.privateToken, scopes: user.scopes }))
  }
}

serveParent({
  start: async (message) => {
    options = { apiPort: 0, uploadPort: 0, ...(message.options as EmulatorOptions) }
    const info = await start()
    // A restart comes back on the same ports, so media-bff's MEDIA_BASE_URL stays right.
    const portOf = (origin: string): number => Number(new URL(origin).port)
    options = { ...options, apiPort: portOf(emulator?.baseUrl ?? ''), uploadPort: portOf(emulator?.uploadOrigin ?? '') }
    return info
  },
  // Forgets every token and registration, in the same (warm) process: the emulator's per-call
  // cost grows with the registrations it holds, so each measured run starts from an empty one.
  restart: async () => {
    await emulator?.stop()
    return await start()
  }
}, async () => { await emulator?.stop() })
