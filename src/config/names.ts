// Names set for media-bff that it does not read: a misspelt variable (SESSION_IDLE_TIMOUT=5m)
// would otherwise leave its default in force without a word. A name is taken for one of ours
// when it is close to a known one (a letter or two off, or in lower case), when it is a known one
// with something added (SESSION_IDLE_TIMEOUT_MS, OAUTH_CLIENT_ID_FILE), or when it
// starts as only media-bff's names do (OAUTH_, RATE_LIMIT_, MEDIA_BFF_...). Anything else in the
// environment belongs to someone else and is left alone; Kubernetes' service links (REDIS_PORT,
// MEDIA_BFF_SERVICE_HOST...) are never taken for ours.

/** Starts that only media-bff's variables have (SESSION_MANAGER is a desktop session's). */
const OUR_PREFIXES = ['MEDIA_BFF_', 'MEDIA_', 'OAUTH_', 'SESSION_', 'REDIS_', 'UPLOAD_', 'RATE_LIMIT_', 'WEBHOOK_', 'EVENTS_', 'LOGIN_', 'ROLLING_UPGRADE_', 'OTEL_BSP_']
const FOREIGN = new Set(['SESSION_MANAGER'])

/** What Kubernetes sets for every Service in the namespace: <SERVICE>_SERVICE_HOST, <SERVICE>_PORT_6379_TCP... */
const SERVICE_LINK = /_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)?)$/

export interface UnknownName {
  name: string
  /** The known name most likely meant, if one is close enough to say. */
  meant: string | undefined
  message: string
}

/**
 * The names among `names` that look meant for media-bff but are none of `known`; `fileOnly`
 * (the names that may come from NAME_FILE) makes NAME_FILE of any other variable one of them.
 */
export function unknownNames (names: Iterable<string>, known: ReadonlySet<string>, fileOnly: ReadonlySet<string>): UnknownName[] {
  const found: UnknownName[] = []
  for (const name of names) {
    if (known.has(name) || FOREIGN.has(name)) continue
    const upper = name.toUpperCase()
    if (known.has(upper)) {
      found.push({ name, meant: upper, message: `is not read: variable names are upper case, ${upper}` })
      continue
    }
    if (SERVICE_LINK.test(upper) && !known.has(upper.replace(/_FILE$/, ''))) continue
    const fileOf = /^(.+)_FILE$/.exec(upper)?.[1]
    if (fileOf !== undefined && known.has(fileOf) && !fileOnly.has(fileOf)) {
      found.push({ name, meant: fileOf, message: `is not read: ${fileOf} cannot come from a file (only ${[...fileOnly].join(', ')} can)` })
      continue
    }
    const meant = closest(upper, known)
    if (meant !== undefined) {
      found.push({ name, meant, message: `is not a variable media-bff reads; did you mean ${meant}?` })
      continue
    }
    const prefix = OUR_PREFIXES.find((start) => upper.startsWith(start))
    if (prefix !== undefined) {
      // Each variable once, not also as the NAME_FILE it may come from.
      const family = [...known].filter((candidate) => candidate.startsWith(prefix) && !(candidate.endsWith('_FILE') && known.has(candidate.slice(0, -'_FILE'.length))))
      found.push({ name, meant: undefined, message: `is not a variable media-bff reads${family.length > 0 ? ` (its ${prefix} variables: ${family.join(', ')})` : ''}` })
    }
  }
  return found
}

/**
 * The known name `name` most likely stands for: one or two edits away (by length: short names
 * differ from many unrelated ones by a letter), or a known one with words added.
 */
function closest (name: string, known: ReadonlySet<string>): string | undefined {
  let best: { name: string, distance: number } | undefined
  for (const candidate of known) {
    const allowed = candidate.length < 8 ? 0 : candidate.length < 16 ? 1 : 2
    if (allowed === 0 || Math.abs(candidate.length - name.length) > allowed) continue
    const distance = editDistance(name, candidate)
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name: candidate, distance }
  }
  if (best !== undefined) return best.name
  // SESSION_IDLE_TIMEOUT_MS, MEDIA_BFF_PUBLIC_URL: a known name with words put after or this
  // project's name before (never one merely inside another's, as LOG_LEVEL in OTEL_LOG_LEVEL).
  return [...known].filter((candidate) => candidate.length >= 8 && (name.startsWith(`${candidate}_`) || name === `MEDIA_BFF_${candidate}`))
    .sort((a, b) => b.length - a.length)[0]
}

/** Edits (insert, delete, replace, swap two neighbours) between two names. */
function editDistance (a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i === 0 ? j : j === 0 ? i : 0))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[]
      const above = rows[i - 1] as number[]
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, (rows[i - 2]?.[j - 2] as number) + 1)
    }
  }
  return rows[a.length]?.[b.length] as number
}
