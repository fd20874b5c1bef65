// The origin clients use for a listening address.
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'

/** Wildcard addresses become loopback: a client cannot connect to 0.0.0.0. */
export function originFor (host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}

export function listeningPort (app: FastifyInstance): number {
  return (app.server.address() as AddressInfo).port
}
