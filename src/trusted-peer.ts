// Whether a connection comes from a reverse proxy of TRUST_PROXY: only such a peer's forwarded
// headers (X-Forwarded-*, X-Request-Id, trace context) are believed. One rule for all of them.
import proxyAddr from '@fastify/proxy-addr'

export type TrustedPeer = (peerAddress: string | undefined) => boolean

export function trustedPeer (trustProxy: readonly string[]): TrustedPeer {
  if (trustProxy.length === 0) return () => false
  const trusted = proxyAddr.compile([...trustProxy])
  return (peerAddress) => peerAddress !== undefined && trusted(peerAddress, 0)
}
