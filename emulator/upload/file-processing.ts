// The service transcodes every uploaded file before it can be played or embedded. The emulator
// does no transcoding; it only lets the time pass: a stored file is `processing` and becomes
// `ready` processingMs after it was stored, so clients see both states and the change between
// them. A new processingMs counts for files already processing too (from their upload), so a
// test can hold files in processing as long as it likes and then let them go at once. The
// timers are unref'd (a process with nothing else to do may exit) and cleared on stop.
import type { StoredFile } from './upload-store.js'

export interface FileProcessing {
  /** Makes the stored (processing) file ready `ms` from now, then calls `onReady` with it. */
  begin: (file: StoredFile, ms: number) => void
  /** Every file still processing becomes ready `ms` after it began (at once if that has passed). */
  retime: (ms: number) => void
  /** The file was deleted: it never becomes ready. */
  cancel: (fileId: number) => void
  /** Clears every timer; nothing becomes ready any more. */
  stop: () => void
}

interface Processing {
  file: StoredFile
  beganAt: number
  timer: NodeJS.Timeout
}

export function createFileProcessing (onReady: (file: StoredFile) => void, now: () => number = Date.now): FileProcessing {
  const processing = new Map<number, Processing>()
  let stopped = false
  const schedule = (file: StoredFile, beganAt: number, ms: number): void => {
    const timer = setTimeout(() => {
      processing.delete(file.fileId)
      file.status = 'ready'
      onReady(file)
    }, Math.max(0, beganAt + ms - now()))
    timer.unref()
    processing.set(file.fileId, { file, beganAt, timer })
  }
  return {
    begin (file, ms) {
      if (!stopped) schedule(file, now(), ms)
    },
    retime (ms) {
      for (const { file, beganAt, timer } of [...processing.values()]) {
        clearTimeout(timer)
        schedule(file, beganAt, ms)
      }
    },
    cancel (fileId) {
      clearTimeout(processing.get(fileId)?.timer)
      processing.delete(fileId)
    },
    stop () {
      stopped = true
      for (const { timer } of processing.values()) clearTimeout(timer)
      processing.clear()
    }
  }
}
