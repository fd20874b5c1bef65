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
// Error messages never repeat the URL: it may carry a password.

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

const multiHostUrl = /^(rediss?)\+(sentinel|cluster):\/\/(?:([^@/?#]*)@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/
const defaultPort = { sentinel: 26379, cluster: 6379 }

export function parseRedisUrl (url: string): RedisConnectionSpec {
  if (/^rediss?:\/\//i.test(url)) return { mode: 'single', url }
  const match = multiHostUrl.exec(url)
  if (match === null) {
    throw new Error('Redis URL must start with redis://, rediss://, redis+sentinel://, rediss+sentinel://, redis+cluster:// or rediss+cluster:// followed by host:port')
  }
  const [, scheme = '', mode = '', userInfo, hostList = '', path = '', query = ''] = match
  const kind = mode === 'sentinel' ? 'sentinel' : 'cluster'
  const addresses = hostList.split(',').map((item, index) => parseAddress(item, index, defaultPort[kind]))
  const credentials: Credentials = { ...parseUserInfo(userInfo), tls: scheme === 'rediss' }
  const params = new URLSearchParams(query)

  if (kind === 'cluster') {
    if (path !== '' && path !== '/') throw new Error('Redis Cluster URL must not have a path (a cluster has no databases)')
    rejectUnknownParams(params, [])
    return { mode: 'cluster', nodes: addresses, ...credentials }
  }

  const masterName = decodeURIComponent(path.replace(/^\/|\/$/g, ''))
  if (masterName === '' || masterName.includes('/')) {
    throw new Error('Redis Sentinel URL must end with /<master name>, e.g. redis+sentinel://host:26379/mymaster')
  }
  rejectUnknownParams(params, ['db', 'sentinelPassword', 'sentinelUsername'])
  const spec: RedisConnectionSpec = { mode: 'sentinel', sentinels: addresses, masterName, ...credentials }
  const db = params.get('db')
  if (db !== null) {
    if (!/^\d+$/.test(db)) throw new Error('Redis Sentinel URL: db must be a non-negative integer')
    spec.db = Number(db)
  }
  const sentinelPassword = params.get('sentinelPassword')
  if (sentinelPassword !== null) spec.sentinelPassword = sentinelPassword
  const sentinelUsername = params.get('sentinelUsername')
  if (sentinelUsername !== null) spec.sentinelUsername = sentinelUsername
  return spec
}

function parseAddress (item: string, index: number, fallbackPort: number): RedisAddress {
  // host, host:port, [v6], [v6]:port
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(item.trim())
  const host = match?.[1] ?? match?.[2]
  const port = match?.[3] === undefined ? fallbackPort : Number(match[3])
  if (host === undefined || port < 1 || port > 65535) {
    throw new Error(`Redis URL: address ${index + 1} of the host list is not host:port`)
  }
  return { host, port }
}

function parseUserInfo (userInfo: string | undefined): { username?: string, password?: string } {
  if (userInfo === undefined || userInfo === '') return {}
  const colon = userInfo.indexOf(':')
  const username = decodeURIComponent(colon === -1 ? userInfo : userInfo.slice(0, colon))
  const password = colon === -1 ? undefined : decodeURIComponent(userInfo.slice(colon + 1))
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
      throw new Error(`Redis URL: unknown query parameter "${name}" (${allowed})`)
    }
  }
}
