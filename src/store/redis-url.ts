// REDIS_URL names one of three deployments. Single servers use the URL forms ioredis itself
// understands; Sentinel and Cluster need several seed addresses, which no standard URL can hold,
// so they get the multi-host forms below and are turned into ioredis's own options (ioredis does
// the discovery and failover, not us).
//
//   redis://[user:password@]host:port[/db]            single server
//   rediss://...                                       single server over TLS
//   redis+sentinel://[user:password@]host:port,host:port/mastername[?db=N&sentinelPassword=...&sentinelUsername=...]
//   redis+cluster://[user:password@]host:port,host:port
//   rediss+sentinel://, rediss+cluster://              the same over TLS
//
// Schemes are case-insensitive (RFC 3986). This is the one parser of REDIS_URL: src/config/config.ts
// validates with it at start, so a URL that passes there is one the client can use.
// Error messages never repeat the URL: it may carry a password. Every refusal is a
// RedisUrlError, so callers can tell a bad URL from a bug.

export interface RedisAddress {
  host: string
  port: number
}

interface Credentials {
  username?: string
  password?: string
  tls: boolean
}

export type RedisConnectionSpec =
  | { mode: 'single', url: string }
  | Credentials & {
    mode: 'sentinel'
    sentinels: RedisAddress[]
    masterName: string
    db?: number
    sentinelUsername?: string
    sentinelPassword?: string
  }
  | Credentials & { mode: 'cluster', nodes: RedisAddress[] }

export class RedisUrlError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'RedisUrlError'
  }
}

const ENCODE_USER_INFO = 'Redis URL: percent-encode /, ?, # and @ in user names and passwords (encodeURIComponent)'

const multiHostUrl = /^(rediss?)\+(sentinel|cluster):\/\/(?:([^@/?#]*)@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/i
const defaultPort = { sentinel: 26379, cluster: 6379 }

export function parseRedisUrl (url: string): RedisConnectionSpec {
  if (/^rediss?:\/\//i.test(url)) {
    checkSingleServerUrl(url)
    return { mode: 'single', url }
  }
  const match = multiHostUrl.exec(url)
  if (match === null) {
    throw new RedisUrlError('Redis URL must start with redis://, rediss://, redis+sentinel://, rediss+sentinel://, redis+cluster:// or rediss+cluster:// followed by host:port')
  }
  const [, scheme = '', mode = '', userInfo, hostList = '', path = '', query = ''] = match
  const kind = mode.toLowerCase() === 'sentinel' ? 'sentinel' : 'cluster'
  const addresses = hostList.split(',').map((item, index) => parseAddress(item, index, defaultPort[kind]))
  const credentials: Credentials = { ...parseUserInfo(userInfo), tls: scheme.toLowerCase() === 'rediss' }
  // An unencoded ? in the password moves the rest of the user info into the query; saying so
  // beats naming a "parameter" that is really half a password.
  if (query.includes('@')) throw new RedisUrlError(ENCODE_USER_INFO)
  const params = new URLSearchParams(query)

  if (kind === 'cluster') {
    if (path !== '' && path !== '/') throw new RedisUrlError('Redis Cluster URL must not have a path (a cluster has no databases)')
    rejectUnknownParams(params, [])
    return { mode: 'cluster', nodes: addresses, ...credentials }
  }

  const masterName = decode(path.replace(/^\/|\/$/g, ''), 'the master name')
  if (masterName === '' || masterName.includes('/')) {
    throw new RedisUrlError('Redis Sentinel URL must end with /<master name>, e.g. redis+sentinel://host:26379/mymaster')
  }
  rejectUnknownParams(params, ['db', 'sentinelPassword', 'sentinelUsername'])
  const spec: RedisConnectionSpec = { mode: 'sentinel', sentinels: addresses, masterName, ...credentials }
  const db = params.get('db')
  if (db !== null) {
    if (!/^\d+$/.test(db)) throw new RedisUrlError('Redis Sentinel URL: db must be a non-negative integer')
    spec.db = Number(db)
  }
  const sentinelPassword = params.get('sentinelPassword')
  if (sentinelPassword !== null) spec.sentinelPassword = sentinelPassword
  const sentinelUsername = params.get('sentinelUsername')
  if (sentinelUsername !== null) spec.sentinelUsername = sentinelUsername
  return spec
}

/** The password a valid Redis URL carries, decoded, if any. */
export function passwordOf (url: string): string | undefined {
  const spec = parseRedisUrl(url)
  if (spec.mode !== 'single') return spec.password
  const password = new URL(url).password
  return password === '' ? undefined : decodeURIComponent(password)
}

/**
 * The URL with REDIS_PASSWORD put in as its password (percent-encoded), for a Redis whose
 * password is a secret of its own rather than part of the URL. The user name, if any, is kept;
 * a URL that already carries a password is the caller's to refuse.
 */
export function withPassword (url: string, password: string): string {
  const match = /^([a-z+]+:\/\/)(?:([^@/?#]*)@)?(.*)$/i.exec(url)
  if (match === null) throw new RedisUrlError('Redis URL must start with a scheme, e.g. redis://')
  const [, scheme = '', userInfo = '', rest = ''] = match
  const username = userInfo.split(':')[0] ?? ''
  return `${scheme}${username}:${encodeURIComponent(password)}@${rest}`
}

function parseAddress (item: string, index: number, fallbackPort: number): RedisAddress {
  // host, host:port, [v6], [v6]:port
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s@]+))(?::(\d{1,5}))?$/.exec(item.trim())
  const host = match?.[1] ?? match?.[2]
  const port = match?.[3] === undefined ? fallbackPort : Number(match[3])
  if (host === undefined || port < 1 || port > 65535) {
    // An @ here is most likely from an unencoded @ in the password.
    throw new RedisUrlError(`Redis URL: address ${index + 1} of the host list is not host:port${item.includes('@') ? ` (${ENCODE_USER_INFO.replace('Redis URL: ', '')})` : ''}`)
  }
  return { host, port }
}

function parseUserInfo (userInfo: string | undefined): { username?: string, password?: string } {
  if (userInfo === undefined || userInfo === '') return {}
  const colon = userInfo.indexOf(':')
  const username = decode(colon === -1 ? userInfo : userInfo.slice(0, colon), 'the user name')
  const password = colon === -1 ? undefined : decode(userInfo.slice(colon + 1), 'the password')
  // redis://:password@host is the usual form without ACL users: no username then.
  return {
    ...(username === '' ? {} : { username }),
    ...(password === undefined || password === '' ? {} : { password })
  }
}

function rejectUnknownParams (params: URLSearchParams, known: string[]): void {
  for (const name of params.keys()) {
    if (!known.includes(name)) {
      const allowed = known.length === 0 ? 'none are supported' : `supported: ${known.join(', ')}`
      // Only a name that looks like one is repeated: anything else may be a piece of a secret.
      const named = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(name) ? ` "${name}"` : ''
      throw new RedisUrlError(`Redis URL: unknown query parameter${named} (${allowed})`)
    }
  }
}

/**
 * redis:// and rediss:// go to ioredis as they are; it reads them with new URL() and
 * decodeURIComponent when the client is built, so anything those would throw on (or read as
 * something else) is refused here, at start, instead.
 */
function checkSingleServerUrl (url: string): void {
  const authority = /^[^:]+:\/\/([^/?#]*)/.exec(url)?.[1] ?? ''
  if (authority.slice(authority.lastIndexOf('@') + 1).includes(',')) {
    throw new RedisUrlError('Redis URL: several hosts need redis+sentinel:// or redis+cluster://')
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new RedisUrlError('Redis URL is not a valid URL (redis://[user:password@]host[:port][/db])')
  }
  if (parsed.hostname === '') throw new RedisUrlError('Redis URL must name a host, e.g. redis://redis:6379')
  if (parsed.port !== '' && Number(parsed.port) === 0) throw new RedisUrlError('Redis URL: the port must be from 1 to 65535')
  if (parsed.hash !== '') throw new RedisUrlError('Redis URL must not have a fragment (#)')
  if (!/^(\/(\d+)?)?$/.test(parsed.pathname)) throw new RedisUrlError('Redis URL: the path must be a database number, e.g. redis://redis:6379/0')
  decode(parsed.username, 'the user name')
  decode(parsed.password, 'the password')
}

function decode (text: string, what: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new RedisUrlError(`Redis URL: ${what} is not valid percent-encoding`)
  }
}
