// media-bff's version: package.json's, read once at start from the project root, whether running
// from the sources (tsx) or from dist/ (the image keeps package.json beside dist/). /healthz names
// it, so an operator sees which version each replica runs during a rolling upgrade.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const fromDist = import.meta.url.includes('/dist/')
const root = fileURLToPath(new URL(fromDist ? '../../' : '../', import.meta.url))

export const version: string = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version
