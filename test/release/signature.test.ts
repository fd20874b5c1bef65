// A release image's signature and its SBOM's attestation (release/signature.ts), in the form
// cosign writes with --key, beside an image in a real registry on loopback: made with a key of
// one's own and verified with its public half; refused with another key, for another digest,
// and when a byte of what was signed changes. The image here is a small one pushed by the test:
// `npm run test:container` signs the release's real image.
import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { getBlob, getManifest, OCI_MANIFEST, putBlob, putManifest, type Repository } from '../../release/registry.js'
import { attestSbom, CYCLONEDX_PREDICATE, signImage, simpleSigningPayload, verifyImageSignature, verifySbomAttestation } from '../../release/signature.js'
import { startImageRegistry } from '../helpers/image-registry.js'

const keyPair = (): ReturnType<typeof generateKeyPairSync> => generateKeyPairSync('ec', { namedCurve: 'P-256' })

function present<T> (value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing`)
  return value
}

/** A small image of one layer: resolves to its manifest's digest. */
async function pushImage (repository: Repository, text: string): Promise<string> {
  const layer = await putBlob(repository, Buffer.from(text), 'application/vnd.oci.image.layer.v1.tar')
  const config = await putBlob(repository, Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [layer.digest] } })), 'application/vnd.oci.image.config.v1+json')
  return await putManifest(repository, text, { schemaVersion: 2, mediaType: OCI_MANIFEST, config, layers: [layer] })
}

t.test('signed and attested with a key of one\'s own, verified with its public half, and nothing else verifies', async (t) => {
  const { host } = await startImageRegistry(t)
  const repository: Repository = { host, name: 'media-bff', insecure: true }
  const digest = await pushImage(repository, 'release')
  const other = await pushImage(repository, 'another')
  const { privateKey, publicKey } = keyPair()
  const sbom = { bomFormat: 'CycloneDX', metadata: { component: { name: 'media-bff', version: '0.3.0' } }, components: [{ name: 'fastify' }] }

  await t.rejects(verifyImageSignature(repository, digest, publicKey), { name: 'SignatureError', message: `media-bff@${digest} is not signed (no ${digest.replace(':', '-')}.sig)` }, 'unsigned: refused')
  await signImage(repository, digest, privateKey)
  await attestSbom(repository, digest, sbom, privateKey)
  await t.resolves(verifyImageSignature(repository, digest, publicKey), 'the signature verifies with the key\'s public half')
  t.same(await verifySbomAttestation(repository, digest, publicKey), sbom, 'and the attestation gives the SBOM back')

  // cosign's layout: the payload as the one layer of `sha256-<hex>.sig`, its signature annotated.
  const signature = await getManifest(repository, `${digest.replace(':', '-')}.sig`)
  t.equal(signature?.layers.length, 1)
  t.equal(signature?.layers[0]?.mediaType, 'application/vnd.dev.cosign.simplesigning.v1+json')
  t.match(signature?.layers[0]?.annotations, { 'dev.cosignproject.cosign/signature': /^[A-Za-z0-9+/]+=*$/ })
  const payload = JSON.parse((await getBlob(repository, signature?.layers[0]?.digest ?? '')).toString('utf8')) as unknown
  t.same(payload, { critical: { identity: { 'docker-reference': `${host}/media-bff` }, image: { 'docker-manifest-digest': digest }, type: 'cosign container image signature' }, optional: null })
  const attestation = await getManifest(repository, `${digest.replace(':', '-')}.att`)
  t.match(attestation?.layers[0], { mediaType: 'application/vnd.dsse.envelope.v1+json', annotations: { predicateType: CYCLONEDX_PREDICATE } })

  const stranger = keyPair().publicKey
  await t.rejects(verifyImageSignature(repository, digest, stranger), { name: 'SignatureError' }, 'another key: refused')
  await t.rejects(verifySbomAttestation(repository, digest, stranger), { name: 'SignatureError' }, 'its attestation too')
  await t.rejects(verifyImageSignature(repository, other, publicKey), { name: 'SignatureError' }, 'another image, never signed: refused')
})

t.test('a signature over another digest, or over a payload changed after signing, does not verify', async (t) => {
  const { host } = await startImageRegistry(t)
  const repository: Repository = { host, name: 'media-bff', insecure: true }
  const digest = await pushImage(repository, 'release')
  const other = await pushImage(repository, 'another')
  const { privateKey, publicKey } = keyPair()

  // A valid signature of the other image, planted where this one's is looked for.
  await signImage(repository, other, privateKey)
  await putManifest(repository, `${digest.replace(':', '-')}.sig`, present(await getManifest(repository, `${other.replace(':', '-')}.sig`), 'the other image\'s signature'))
  await t.rejects(verifyImageSignature(repository, digest, publicKey), { name: 'SignatureError', message: /no signature of media-bff@sha256:[0-9a-f]{64} verifies with this key/ }, 'a signature that names another digest: refused')

  // This image's payload, changed after it was signed: the signature no longer matches it.
  await signImage(repository, digest, privateKey)
  const manifest = present(await getManifest(repository, `${digest.replace(':', '-')}.sig`), 'the signature')
  const signatureOf = manifest.layers[0]?.annotations ?? {}
  const changed = Buffer.from(simpleSigningPayload({ ...repository, name: 'elsewhere' }, digest))
  const layer = await putBlob(repository, changed, 'application/vnd.dev.cosign.simplesigning.v1+json')
  await putManifest(repository, `${digest.replace(':', '-')}.sig`, { ...manifest, layers: [{ ...layer, annotations: signatureOf }] })
  await t.rejects(verifyImageSignature(repository, digest, publicKey), { name: 'SignatureError' }, 'a payload changed after signing: refused')
})
