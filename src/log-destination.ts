// Where media-bff's log lines go: standard output, in a way that can never hold the process up,
// nor its exit. A log shipper that stops reading (hung, or gone while another process still holds
// its end of the pipe) would otherwise fill the pipe, and pino's own destination then waits for
// room: a blocking write on a worker thread, or a synchronous flush at exit that retries for
// good, so a SIGTERM never ends the process.
//
// On a pipe or a socket (a container's log driver, a shipper, a parent process) the lines go
// through a non-blocking socket on the same descriptor: written as the reader takes them, kept in
// memory up to a bound while it does not, and dropped beyond it, counted (the metric
// media_bff_log_lines_dropped_total). The last quarter of that bound is kept for the audit events
// (src/audit/audit-events.ts): an ordinary line is dropped before any of them is. When the reader
// takes lines again, one line says how many were dropped. At shutdown what is left gets a moment to go out
// (src/server.ts), and whatever is still waiting then is let go with the process. A file or a
// terminal is written synchronously, as it never waits for a reader.
import { fstatSync, writeSync } from 'node:fs'
import { Socket } from 'node:net'
import { AUDIT_MARK } from './audit/audit-events.js'

export interface LogDestination {
  /** pino's stream: one line at a time. */
  write: (line: string) => boolean
  /** Resolves once every line written so far has gone out, or after `ms`, whichever is first. */
  flush: (ms: number) => Promise<void>
  /** Lines dropped because the reader did not take them (or is gone). */
  readonly dropped: number
}

/** What may wait in memory for a reader that has stopped: a few thousand lines. */
const MAX_WAITING_BYTES = 1024 * 1024
/** Of it, what only audit lines may take. */
const AUDIT_RESERVE_BYTES = 256 * 1024

let standardOutput: LogDestination | undefined

/** The destination of standard output, one per process (every app built in it shares it). */
export function standardOutputLogs (): LogDestination {
  standardOutput ??= logDestination(1)
  return standardOutput
}

/** Lines standard output's destination dropped so far (none if nothing logged there). */
export function droppedLogLines (): number {
  return standardOutput?.dropped ?? 0
}

export function logDestination (fd: number): LogDestination {
  let kind: 'stream' | 'file'
  try {
    const stat = fstatSync(fd)
    kind = stat.isFIFO() || stat.isSocket() ? 'stream' : 'file'
  } catch {
    return dropEverything()
  }
  return kind === 'stream' ? socketDestination(fd) : fileDestination(fd)
}

function socketDestination (fd: number): LogDestination {
  // Opened as libuv opens a pipe: non-blocking, written from the event loop, never a worker.
  const socket = new Socket({ fd, readable: false, writable: true })
  // Lines never keep the process alive, and a reader that went away (EPIPE) ends the logging.
  socket.unref()
  let broken = false
  let dropped = 0
  // Dropped since the reader last took lines, and of those the audit lines: said in one line once
  // it takes them again.
  let unsaid = 0
  let unsaidAudit = 0
  socket.on('error', () => { broken = true })
  const roomForAll = (): boolean => socket.writableLength <= MAX_WAITING_BYTES - AUDIT_RESERVE_BYTES
  const sayDropped = (): void => {
    if (unsaid === 0 || broken || socket.destroyed || !roomForAll()) return
    socket.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: 'log lines were dropped: the reader of the log did not keep up', dropped: unsaid, audit_dropped: unsaidAudit })}\n`)
    unsaid = 0
    unsaidAudit = 0
  }
  socket.on('drain', sayDropped)
  return {
    write (line) {
      const audit = line.includes(AUDIT_MARK)
      if (broken || socket.destroyed || socket.writableLength > (audit ? MAX_WAITING_BYTES : MAX_WAITING_BYTES - AUDIT_RESERVE_BYTES)) {
        dropped++
        unsaid++
        if (audit) unsaidAudit++
        return true
      }
      sayDropped()
      socket.write(line)
      return true
    },
    async flush (ms) {
      if (broken || socket.destroyed || socket.writableLength === 0) return
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer)
          socket.off('drain', done)
          socket.off('error', done)
          resolve()
        }
        const timer = setTimeout(done, ms)
        timer.unref()
        socket.once('drain', done)
        socket.once('error', done)
      })
    },
    get dropped () { return dropped }
  }
}

function fileDestination (fd: number): LogDestination {
  let dropped = 0
  return {
    write (line) {
      try {
        writeSync(fd, line)
      } catch {
        dropped++
      }
      return true
    },
    flush: async () => {},
    get dropped () { return dropped }
  }
}

function dropEverything (): LogDestination {
  let dropped = 0
  return {
    write () {
      dropped++
      return true
    },
    flush: async () => {},
    get dropped () { return dropped }
  }
}
