// Each user's library has a version and a time of its last change, as a real service may keep
// them (a change counter and an updated-at column): every write to a user's folders or files
// moves both on. The library's GETs answer with validators made from them (etag.ts), not from
// the body: a weak ETag from the version, and Last-Modified from the time. Every user's library
// starts seeded alike, at version 1 and the emulator's start, so two users' untouched libraries
// (and any two at the same version) share their validators, and a client that keeps answers for
// more than one user must keep them apart itself, as a BFF behind one URL must.

export interface LibraryVersion {
  version: number
  /** Milliseconds, whole seconds (HTTP dates have no finer grain). */
  modifiedMs: number
}

export interface LibraryVersions {
  current: (userName: string) => LibraryVersion
  /** Call after every change to the user's folders or files. */
  changed: (userName: string) => void
}

export function createLibraryVersions (now: () => number = Date.now): LibraryVersions {
  const seeded: LibraryVersion = { version: 1, modifiedMs: wholeSeconds(now()) }
  const versions = new Map<string, LibraryVersion>()
  return {
    current: (userName) => versions.get(userName) ?? seeded,
    changed (userName) {
      const before = versions.get(userName) ?? seeded
      versions.set(userName, { version: before.version + 1, modifiedMs: wholeSeconds(now()) })
    }
  }
}

function wholeSeconds (ms: number): number {
  return Math.floor(ms / 1000) * 1000
}
