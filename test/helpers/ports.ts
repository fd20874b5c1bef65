import { setTimeout as sleep } from 'node:timers/promises'
import { createServer } from 'node:net'
import { readFileSync } from 'node:fs'

/**
 * A free loopback port for a server a test starts a moment later. Not one the kernel hands out
 * for port 0: those are its ephemeral ports, which every outgoing connection (HTTP clients, Redis
 * clients, in any process) also takes as its source port, so one freed here could be taken
 * before the test binds it (EADDRINUSE). Ports just below the ephemeral range are never taken
 * that way; each is checked by binding it, and never given twice by this process.
 */
export async function freePort (): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = range.low + Math.floor(Math.random() * (range.high - range.low + 1))
    if (given.has(port)) continue
    if (await bindable(port)) {
      given.add(port)
      return port
    }
  }
  // Nothing free below the ephemeral range (or not on Linux): ask the kernel after all.
  return await kernelPort()
}

const given = new Set<number>()
const range = belowEphemeralPorts()

function belowEphemeralPorts (): { low: number, high: number } {
  let ephemeralLow = 32768
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow
  } catch {}
  const high = Math.max(2048, ephemeralLow - 1)
  return { low: Math.max(1025, high - 12_000), high }
}

async function bindable (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = createServer()
    server.unref()
    server.once('error', () => { resolve(false) })
    server.listen(port, '127.0.0.1', () => { server.close(() => { resolve(true) }) })
  })
}

async function kernelPort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port)
        else reject(new Error('no port'))
      })
    })
  })
}

/** Resolves once something accepts TCP connections on host:port, or rejects after timeoutMs. */
export async function waitForPort (port: number, host = '127.0.0.1', timeoutMs = 10_000): Promise<void> {
  const { connect } = await import('node:net')
  const deadline = Date.now() + timeoutMs
  while (true) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host)
      socket.once('connect', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => { socket.destroy(); resolve(false) })
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`)
    await sleep(50)
  }
}
