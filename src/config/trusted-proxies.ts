// TRUST_PROXY entries: whether each is an address or CIDR range, and whether together they trust
// every client address (which would let any client forge X-Forwarded-For).
import { isIP } from 'node:net'

export function isAddressOrCidr (entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true
  const [address = '', prefix] = entry.split('/')
  const family = isIP(address)
  if (family === 0) return false
  if (prefix === undefined) return true
  return /^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

// What TRUST_PROXY means to Fastify's proxy-address matcher (@fastify/proxy-addr): IPv4 clients
// are matched by IPv4 ranges and by IPv4-mapped IPv6 ranges of prefix 96 or more
// (::ffff:0.0.0.0/96 is 0.0.0.0/0); IPv6 clients by the other IPv6 ranges.
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']
}
const V4_BITS = 32n
const V6_BITS = 128n
/** Every public IPv6 address lies in 2000::/3; trusting all of it is trusting everyone. */
const GLOBAL_V6: Interval = [0x2n << 124n, (0x4n << 124n) - 1n]

type Interval = [bigint, bigint]

/** A description of the client addresses the entries trust entirely, or undefined. */
export function trustsEveryone (entries: string[]): string | undefined {
  const v4: Interval[] = []
  const v6: Interval[] = []
  for (const entry of entries.flatMap((item) => NAMED_RANGES[item] ?? [item])) {
    const [address = '', prefixText] = entry.split('/')
    if (isIP(address) === 4) {
      v4.push(range(ipv4Number(address), prefixText === undefined ? V4_BITS : BigInt(prefixText), V4_BITS))
      continue
    }
    const value = ipv6Number(address)
    const prefix = prefixText === undefined ? V6_BITS : BigInt(prefixText)
    if (value >> 32n === 0xffffn) {
      // IPv4-mapped: only a prefix that keeps the ::ffff: marker reaches IPv4 clients.
      if (prefix >= 96n) v4.push(range(value & 0xffffffffn, prefix - 96n, V4_BITS))
    } else {
      v6.push(range(value, prefix, V6_BITS))
    }
  }
  if (covers(v4, [0n, (1n << V4_BITS) - 1n])) return entries.length === 1 ? `"${entries[0] ?? ''}" trusts every IPv4 address` : 'together, the entries trust every IPv4 address'
  if (covers(v6, GLOBAL_V6)) return entries.length === 1 ? `"${entries[0] ?? ''}" trusts every public IPv6 address` : 'together, the entries trust every public IPv6 address'
  return undefined
}

function range (address: bigint, prefix: bigint, bits: bigint): Interval {
  const size = 1n << (bits - prefix)
  const start = address - (address % size)
  return [start, start + size - 1n]
}

function covers (intervals: Interval[], [from, to]: Interval): boolean {
  let next = from
  for (const [start, end] of [...intervals].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (start > next) break
    if (end >= next) next = end + 1n
    if (next > to) return true
  }
  return next > to
}

function ipv4Number (address: string): bigint {
  return address.split('.').reduce((total, octet) => (total << 8n) + BigInt(octet), 0n)
}

function ipv6Number (address: string): bigint {
  let text = address.split('%')[0] ?? ''
  // A trailing dotted quad (::ffff:10.0.0.1) is the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1]
  if (quad !== undefined) {
    const value = ipv4Number(quad)
    text = `${text.slice(0, -quad.length)}${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const groups = (part: string): string[] => part === '' ? [] : part.split(':')
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return all.reduce((total, group) => (total << 16n) + BigInt(`0x${group}`), 0n)
}
