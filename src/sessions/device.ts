// A short description of the device a session was started on, from its User-Agent, for people
// to recognise their own sessions ("Firefox on Windows"). The header is the browser's to say
// anything in: only names from the lists below ever come out, never the header's own text.

/** Checked in order: the first match names the browser (Edge and Opera also say Chrome; Chrome says Safari). */
const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\b(Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bcurl\//, 'curl']
]

const SYSTEMS: Array<[RegExp, string]> = [
  [/\biPad\b/, 'iPad'],
  [/\biPhone\b/, 'iPhone'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux']
]

/** The longest User-Agent looked at; real ones are a few hundred characters. */
const MAX_LENGTH = 512

export function describeDevice (userAgent: string | undefined): string {
  const text = (userAgent ?? '').slice(0, MAX_LENGTH)
  const browser = BROWSERS.find(([pattern]) => pattern.test(text))?.[1]
  const system = SYSTEMS.find(([pattern]) => pattern.test(text))?.[1]
  if (browser !== undefined && system !== undefined) return `${browser} on ${system}`
  return browser ?? (system === undefined ? 'Unknown device' : `A browser on ${system}`)
}
