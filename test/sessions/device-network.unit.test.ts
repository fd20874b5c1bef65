// What a session list shows of a device and a network: a short known name, never the header's
// own text; an address only to its /24 or /48.
import t from 'tap'
import fc from 'fast-check'
import { describeDevice } from '../../src/sessions/device.js'
import { coarseNetwork } from '../../src/sessions/network.js'

t.test('common browsers and systems are named', async (t) => {
  const cases: Array<[string, string]> = [
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on Windows'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86', 'Edge on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15', 'Safari on macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', 'Safari on iPhone'],
    ['Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0 Mobile/15E148 Safari/604.1', 'Chrome on iPad'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Linux'],
    ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36', 'Samsung Internet on Android'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on ChromeOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0', 'Opera on Windows'],
    ['curl/8.5.0', 'curl'],
    ['Mozilla/5.0 (X11; Linux x86_64) SomethingNew/1.0', 'A browser on Linux'],
    ['', 'Unknown device']
  ]
  for (const [userAgent, expected] of cases) t.equal(describeDevice(userAgent), expected, expected)
  t.equal(describeDevice(undefined), 'Unknown device')
})

t.test('property: whatever the User-Agent, only a known name comes out', async (t) => {
  const names = /^((Edge|Opera|Samsung Internet|Firefox|Chrome|Safari|curl)( on (iPad|iPhone|Android|ChromeOS|Windows|macOS|Linux))?|A browser on (iPad|iPhone|Android|ChromeOS|Windows|macOS|Linux)|Unknown device)$/
  const parts = fc.constantFrom('Mozilla/5.0 ', '(Windows NT 10.0) ', 'Chrome/1 ', 'Safari/2 ', '<script>', '\u202e', '\r\nX: 1', 'Version/3 ', 'Firefox/4', 'iPhone', 'Linux', '"', 'Edg/5')
  fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 600 }), fc.array(parts, { maxLength: 12 }).map((p) => p.join(''))), (userAgent) => names.test(describeDevice(userAgent))), { numRuns: 2000 })
  t.pass('2000 generated User-Agents')
})

t.test('networks: IPv4 to its /24, IPv6 to its /48, mapped IPv4 as IPv4', async (t) => {
  const cases: Array<[string, string]> = [
    ['203.0.113.77', '203.0.113.0/24'],
    ['::ffff:198.51.100.9', '198.51.100.0/24'],
    ['2001:db8:1234:5678::1', '2001:db8:1234::/48'],
    ['2001:0db8:0001:ffff:0:0:0:1', '2001:db8:1::/48'],
    ['2001:db8::1', '2001:db8:0::/48'],
    ['::1', '0:0:0::/48'],
    ['fe80::1%eth0', 'fe80:0:0::/48'],
    ['not an address', 'unknown']
  ]
  for (const [ip, expected] of cases) t.equal(coarseNetwork(ip), expected, ip)
})

t.test('property: the /48 of any IPv6 address keeps its first three groups and nothing more', async (t) => {
  fc.assert(fc.property(fc.ipV6(), (ip) => {
    const network = coarseNetwork(ip)
    const groups = network.replace(/::\/48$/, '').split(':')
    return /::\/48$/.test(network) && groups.length === 3 && groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))
  }), { numRuns: 2000 })
  t.pass('2000 generated addresses')
})
