// A release image's signature and its SBOM's attestation, made with a key of one's own, in the
// form cosign writes and reads with `--key` (cosign's specification, "Signature Specification"
// and "Attestation Specification"), beside the image in its own registry:
// - the signature: tag `sha256-<digest>.sig`, one layer holding the simple-signing payload that
//   names the image's manifest digest, the ECDSA P-256 signature of that payload in the layer's
//   `dev.cosignproject.cosign/signature` annotation;
// - the attestation: tag `sha256-<digest>.att`, one layer holding a DSSE envelope whose payload is
//   an in-toto statement about that digest with the CycloneDX SBOM as its predicate.
// The forge's CI signs keyless with cosign itself instead (.github/workflows/release.yml); this is
// for a release cut elsewhere, and what the suite makes and verifies on loopback.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto'
import { getBlob, getManifest, OCI_MANIFEST, putBlob, putManifest, type Descriptor, type Repository } from './registry.js'

const SIMPLE_SIGNING = 'application/vnd.dev.cosign.simplesigning.v1+json'
const DSSE_ENVELOPE = 'application/vnd.dsse.envelope.v1+json'
const IN_TOTO = 'application/vnd.in-toto+json'
const SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature'
const SIGNATURE_TYPE = 'cosign container image signature'
export const CYCLONEDX_PREDICATE = 'https://cyclonedx.org/bom'

/** A P-256 key from PEM (PKCS #8 or SEC 1): the only kind cosign's `--key` signatures use. */
export function signingKey (pem: string): KeyObject {
  const key = createPrivateKey(pem)
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('the signing key must be an ECDSA P-256 private key (PEM)')
  return key
}

export function verifyingKey (pem: string): KeyObject {
  const key = createPublicKey(pem)
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('the public key must be an ECDSA P-256 key (PEM)')
  return key
}

/** `sha256:<hex>` as the tag its signature (`.sig`) or attestation (`.att`) lives under. */
function tagOf (digest: string, suffix: 'sig' | 'att'): string {
  return `${digest.replace(':', '-')}.${suffix}`
}

/** cosign's empty image config, its one "layer" the payload. */
async function putArtifact (repository: Repository, tag: string, layer: Descriptor): Promise<void> {
  const config = Buffer.from(JSON.stringify({ architecture: '', created: '0001-01-01T00:00:00Z', history: [{ created: '0001-01-01T00:00:00Z' }], os: '', rootfs: { type: 'layers', diff_ids: [layer.digest] }, config: {} }))
  const configDescriptor = await putBlob(repository, config, 'application/vnd.oci.image.config.v1+json')
  await putManifest(repository, tag, { schemaVersion: 2, mediaType: OCI_MANIFEST, config: configDescriptor, layers: [layer] })
}

/** The payload cosign signs for an image: what it is (the repository) and exactly which (the digest). */
export function simpleSigningPayload (repository: Repository, digest: string): Buffer {
  return Buffer.from(JSON.stringify({
    critical: { identity: { 'docker-reference': `${repository.host}/${repository.name}` }, image: { 'docker-manifest-digest': digest }, type: SIGNATURE_TYPE },
    optional: null
  }))
}

export async function signImage (repository: Repository, digest: string, key: KeyObject): Promise<void> {
  const payload = simpleSigningPayload(repository, digest)
  const signature = sign('sha256', payload, key).toString('base64')
  const layer = await putBlob(repository, payload, SIMPLE_SIGNING)
  await putArtifact(repository, tagOf(digest, 'sig'), { ...layer, annotations: { [SIGNATURE_ANNOTATION]: signature } })
}

/** DSSE's pre-authentication encoding: what the envelope's signature covers. */
function preAuthenticationEncoding (payloadType: string, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `), payload])
}

export async function attestSbom (repository: Repository, digest: string, sbom: unknown, key: KeyObject): Promise<void> {
  const statement = Buffer.from(JSON.stringify({
    _type: 'https://in-toto.io/Statement/v0.1',
    predicateType: CYCLONEDX_PREDICATE,
    subject: [{ name: `${repository.host}/${repository.name}`, digest: { sha256: digest.slice('sha256:'.length) } }],
    predicate: sbom
  }))
  const envelope = Buffer.from(JSON.stringify({
    payloadType: IN_TOTO,
    payload: statement.toString('base64'),
    signatures: [{ keyid: '', sig: sign('sha256', preAuthenticationEncoding(IN_TOTO, statement), key).toString('base64') }]
  }))
  const layer = await putBlob(repository, envelope, DSSE_ENVELOPE)
  await putArtifact(repository, tagOf(digest, 'att'), { ...layer, annotations: { predicateType: CYCLONEDX_PREDICATE } })
}

export class SignatureError extends Error {
  override name = 'SignatureError'
}

/** Checks the image's signature: by this key, over a payload naming exactly this digest. */
export async function verifyImageSignature (repository: Repository, digest: string, key: KeyObject): Promise<void> {
  const manifest = await getManifest(repository, tagOf(digest, 'sig'))
  if (manifest === undefined) throw new SignatureError(`${repository.name}@${digest} is not signed (no ${tagOf(digest, 'sig')})`)
  const signed = manifest.layers.filter((layer) => layer.mediaType === SIMPLE_SIGNING)
  for (const layer of signed) {
    const payload = await getBlob(repository, layer.digest)
    const signature = Buffer.from(layer.annotations?.[SIGNATURE_ANNOTATION] ?? '', 'base64')
    if (!verify('sha256', payload, key, signature)) continue
    const critical = (JSON.parse(payload.toString('utf8')) as { critical?: { type?: unknown, image?: { 'docker-manifest-digest'?: unknown } } }).critical
    if (critical?.type === SIGNATURE_TYPE && critical.image?.['docker-manifest-digest'] === digest) return
  }
  throw new SignatureError(`no signature of ${repository.name}@${digest} verifies with this key`)
}

/** Checks the SBOM's attestation (this key, this digest) and resolves to the SBOM it attests. */
export async function verifySbomAttestation (repository: Repository, digest: string, key: KeyObject): Promise<unknown> {
  const manifest = await getManifest(repository, tagOf(digest, 'att'))
  if (manifest === undefined) throw new SignatureError(`${repository.name}@${digest} has no attestation (no ${tagOf(digest, 'att')})`)
  for (const layer of manifest.layers.filter((each) => each.mediaType === DSSE_ENVELOPE)) {
    const envelope = JSON.parse((await getBlob(repository, layer.digest)).toString('utf8')) as { payloadType?: unknown, payload?: unknown, signatures?: Array<{ sig?: unknown }> }
    if (envelope.payloadType !== IN_TOTO || typeof envelope.payload !== 'string') continue
    const statement = Buffer.from(envelope.payload, 'base64')
    const signed = (envelope.signatures ?? []).some((each) => typeof each.sig === 'string' && verify('sha256', preAuthenticationEncoding(IN_TOTO, statement), key, Buffer.from(each.sig, 'base64')))
    if (!signed) continue
    const { predicateType, subject, predicate } = JSON.parse(statement.toString('utf8')) as { predicateType?: unknown, subject?: Array<{ digest?: { sha256?: unknown } }>, predicate?: unknown }
    if (predicateType === CYCLONEDX_PREDICATE && (subject ?? []).some((each) => `sha256:${String(each.digest?.sha256)}` === digest)) return predicate
  }
  throw new SignatureError(`no SBOM attestation of ${repository.name}@${digest} verifies with this key`)
}
