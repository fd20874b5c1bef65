// The coarse network a session was started from, for people to tell their sessions apart
// ("203.0.113.0/24") without media-bff keeping or showing anyone's exact address: IPv4 to its
// /24, IPv6 to its /48 (a site), IPv4-mapped IPv6 as the IPv4 it is.
import { isIPv4, isIPv6 } from 'node:net'

export function coarseNetwork (ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1]
  const v4 = mapped ?? (isIPv4(ip) ? ip : undefined)
  if (v4 !== undefined) return `${v4.split('.').slice(0, 3).join('.')}.0/24`
  if (!isIPv6(ip)) return 'unknown'
  const groups = expandIpv6(ip).slice(0, 3).map((group) => group.replace(/^0+(?=.)/, ''))
  return `${groups.join(':')}::/48`
}

/** The eight groups of an IPv6 address (zone and embedded IPv4 tail included), as hex text. */
function expandIpv6 (ip: string): string[] {
  const address = ip.replace(/%.*$/, '')
  const [head = '', tail] = address.split('::')
  const split = (part: string | undefined): string[] => {
    if (part === undefined || part === '') return []
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [group]
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number)
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
    })
  }
  const left = split(head)
  const right = split(tail)
  const missing = tail === undefined ? 0 : 8 - left.length - right.length
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right]
}
