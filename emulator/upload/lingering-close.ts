// Lingering close for answers sent while the request body is still arriving (a refused upload).
// Node ends a `Connection: close` socket as soon as the answer is written (socket.destroySoon):
// the body bytes still arriving then hit a closed socket, the kernel answers them with a reset,
// and a browser that reads the answer only once it has sent its body loses the answer to that
// reset. Web servers linger instead (Apache's lingering close): half-close, keep reading and
// discarding what the client still sends until it stops, within bounds, then close.
import type { IncomingMessage } from 'node:http'

export interface LingerLimits {
  /** Longest wait for the client to stop sending after the answer. */
  ms: number
  /** Most bytes discarded before giving up on the client. */
  bytes: number
}

export const defaultLinger: LingerLimits = { ms: 5000, bytes: 16 * 1024 * 1024 }

/**
 * Call before the answer is sent (the answer must say `Connection: close`, so the client stops
 * sending). Does nothing when the body has already arrived in full.
 */
export function lingerAfterAnswer (req: IncomingMessage, limits: LingerLimits): void {
  if (req.complete) return
  const socket = req.socket
  let discarded = 0
  let lingering = false
  let timer: NodeJS.Timeout | undefined
  const close = (): void => {
    clearTimeout(timer)
    socket.destroy()
  }
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (lingering && discarded > limits.bytes) close()
  })
  req.resume()

  const destroySoon = socket.destroySoon
  // Node calls this once the answer is written; only this socket's call is replaced, once.
  socket.destroySoon = () => {
    socket.destroySoon = destroySoon
    if (req.complete || discarded > limits.bytes) {
      destroySoon.call(socket)
      return
    }
    lingering = true
    // The answer is out; FIN says no more is coming while the read side stays open (the HTTP
    // server allows half-open sockets).
    socket.end()
    timer = setTimeout(close, limits.ms)
    // The rest of the body arrived, or the client half-closed: nothing more to read.
    req.once('end', close)
    socket.once('end', close)
    socket.once('close', () => { clearTimeout(timer) })
  }
}
