// Bodies from the media service are read with a size cap: a tenant that answers with an endless
// or enormous body must cost media-bff a bounded amount of memory, then a 502.

/** What media-bff reads at most from one answer of the media service or its token endpoint. */
export const MAX_UPSTREAM_BODY_BYTES = 1_048_576

export class BodyTooLargeError extends Error {
  constructor (readonly limitBytes: number) {
    super(`the answer is larger than ${limitBytes} bytes`)
    this.name = 'BodyTooLargeError'
  }
}

export class BodyDeadlineError extends Error {
  constructor () {
    super('the answer did not arrive in time')
    this.name = 'TimeoutError'
  }
}

/**
 * The body as UTF-8 text, or BodyTooLargeError as soon as it passes `limitBytes`, or
 * BodyDeadlineError when a chunk arrives after `deadline` (a performance.now() time). The rest is
 * not read: the stream is abandoned, which lets its owner destroy the connection.
 */
export async function readCappedText (body: AsyncIterable<Uint8Array>, limitBytes = MAX_UPSTREAM_BODY_BYTES, deadline = Infinity): Promise<string> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.byteLength
    if (size > limitBytes) throw new BodyTooLargeError(limitBytes)
    if (performance.now() > deadline) throw new BodyDeadlineError()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size).toString('utf8')
}
