// Like startStack (test/helpers/bff.ts), but also hands out the instance the application's plugins
// decorate (src/app.ts registers them in a context of their own), so a test can reach the stores
// directly: fill the login store as a flood would, or read a stored transaction.
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import { app } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { defaultLogger, serverOptions } from '../../src/server-options.js'
import { bffEnv, startEmulatorFor } from '../helpers/bff.js'
import { Browser } from '../helpers/http-client.js'
import { freePort } from '../helpers/ports.js'

export interface InnerStack {
  /** The instance carrying ephemeralKv, kv, loginTransactions... */
  inner: FastifyInstance
  browser: (headers?: Record<string, string>) => Browser
  logs: string[]
  close: () => Promise<void>
}

export async function startInnerStack (env: Record<string, string | undefined> = {}): Promise<InnerStack> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const emulator = await startEmulatorFor(port)
  const config = loadConfig(bffEnv(emulator, url, env))
  const logs: string[] = []
  const stream = new Writable({ write (chunk, _encoding, callback) { logs.push(String(chunk)); callback() } })
  const fastify = Fastify(serverOptions(config, { ...(defaultLogger(config) as object), stream }))
  let inner: FastifyInstance | undefined
  await fastify.register(async (instance) => {
    await app(instance, { config })
    inner = instance
  })
  await fastify.listen({ host: '127.0.0.1', port })
  if (inner === undefined) throw new Error('the application did not register')
  return {
    inner,
    browser: (headers = {}) => new Browser(url, headers),
    logs,
    close: async () => {
      await fastify.close()
      await emulator.stop()
    }
  }
}
