// `npm run release:verify -- <repository>@sha256:<digest> --key <public key PEM>`: checks a
// release image that `npm run release -- --sign-key` signed (release/signature.ts): its signature
// by that key over exactly that digest, and its SBOM's attestation; prints what the SBOM names.
// --insecure-registry for a registry on plain http. An image the forge's CI signed keyless is
// checked with cosign itself (docs/guide/develop.md, "Releases").
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { parseReference } from './registry.js'
import { SignatureError, verifyImageSignature, verifySbomAttestation, verifyingKey } from './signature.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { key: { type: 'string' }, 'insecure-registry': { type: 'boolean', default: false } }
})

function fail (message: string): never {
  process.stderr.write(`release:verify: ${message}\n`)
  process.exit(1)
}

const [reference] = positionals
if (reference === undefined || values.key === undefined) fail('usage: npm run release:verify -- <repository>@sha256:<digest> --key <public key PEM>')
const { repository, digest } = parseReference(reference, values['insecure-registry'])
if (digest === undefined) fail(`${reference} names no digest: verify what was pushed by digest, never a tag (a tag can move)`)
const key = verifyingKey(await readFile(values.key, 'utf8'))
try {
  await verifyImageSignature(repository, digest, key)
  const sbom = await verifySbomAttestation(repository, digest, key) as { metadata?: { component?: { name?: string, version?: string } }, components?: unknown[] }
  const component = sbom.metadata?.component
  process.stdout.write(`${reference}: signed by this key; its SBOM attested: ${component?.name ?? '?'} ${component?.version ?? '?'}, ${sbom.components?.length ?? 0} components\n`)
} catch (error) {
  if (error instanceof SignatureError) fail(error.message)
  throw error
}
