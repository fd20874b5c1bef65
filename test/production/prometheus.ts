// Reads a replica's /metrics (Prometheus text format 0.0.4) into samples, so tests can ask for a
// series by name and labels instead of matching raw text.
import { request } from 'undici'

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Scrape {
  contentType: string
  samples: Sample[]
  /** Every metric family by name and type (`# TYPE` lines), those without a sample yet too. */
  families: Map<string, string>
  /** Sum of the values of every sample with this name whose labels include `labels`. */
  sum: (name: string, labels?: Record<string, string>) => number
  /** Whether any sample has this name and labels (a series exists once it has been touched). */
  has: (name: string, labels?: Record<string, string>) => boolean
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parseMetrics (text: string, contentType = ''): Scrape {
  const samples: Sample[] = []
  const families = new Map<string, string>()
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type !== null) families.set(type[1] as string, type[2] as string)
    if (line === '' || line.startsWith('#')) continue
    const match = LINE.exec(line)
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value.replace(/\\(.)/g, (_, c: string) => c === 'n' ? '\n' : c)
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) })
  }
  const matching = (name: string, labels: Record<string, string>): Sample[] =>
    samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
  return {
    contentType,
    samples,
    families,
    sum: (name, labels = {}) => matching(name, labels).reduce((total, sample) => total + sample.value, 0),
    has: (name, labels = {}) => matching(name, labels).length > 0
  }
}

/** GET {baseUrl}/metrics, straight from a replica, with its METRICS_TOKEN when it has one. */
export async function scrape (baseUrl: string, token?: string): Promise<Scrape> {
  const response = await request(`${baseUrl}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })
  const text = await response.body.text()
  if (response.statusCode !== 200) throw new Error(`/metrics answered ${response.statusCode}: ${text}`)
  return parseMetrics(text, String(response.headers['content-type'] ?? ''))
}
