// The image's software bill of materials (CycloneDX JSON, to stdout): run in docker/Dockerfile's
// build stage once `npm prune` has left node_modules as the image holds it, by the Node the image
// runs (plain JavaScript: the build stage compiles nothing for it). npm lists the installed
// packages; this names the application as package.json does and adds that Node. The base image's
// Debian packages are its publisher's: an image scanner reads those from the image itself.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'

const text = readFileSync('package.json', 'utf8')
const manifest = JSON.parse(text)
// npm would call every pruned dev dependency missing, and its lockfile view leaves out a package
// that is both a dev dependency of ours and a dependency of a dependency (pino, fastify's): the
// installed tree is read against a manifest without them, then the manifest is put back.
const { devDependencies, optionalDependencies, ...runtime } = manifest
writeFileSync('package.json', JSON.stringify(runtime))
let bom
try {
  bom = JSON.parse(execFileSync('npm', ['sbom', '--sbom-format', 'cyclonedx', '--sbom-type', 'application'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }))
} finally {
  writeFileSync('package.json', text)
}
// npm names the root after the folder it is in (/app): the package's own name instead.
bom.metadata.component.name = manifest.name
bom.metadata.component.version = manifest.version
const node = process.version.slice(1)
bom.components.push({ 'bom-ref': `node@${node}`, type: 'platform', name: 'node', version: node, purl: `pkg:generic/node@${node}`, description: 'The Node.js runtime the image runs' })
process.stdout.write(`${JSON.stringify(bom, null, 2)}\n`)
