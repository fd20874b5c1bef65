// The little of the OCI distribution API a release's signature needs: put a blob, put and get a
// manifest by tag, get a blob by digest. Anonymous, as a registry of one's own on loopback or
// inside a network answers; one that asks for a login is refused with that said (the forge's CI
// signs with cosign, which logs in itself: docs/guide/develop.md, "Releases").
import { createHash } from 'node:crypto'

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'

/** An image repository, e.g. `127.0.0.1:5000/media-bff`, reached over https (or http when asked). */
export interface Repository {
  /** registry host[:port] */
  host: string
  /** the repository's path in that registry */
  name: string
  insecure: boolean
}

export interface Descriptor {
  mediaType: string
  size: number
  digest: string
  annotations?: Record<string, string>
}

export interface ImageManifest {
  schemaVersion: 2
  mediaType: string
  config: Descriptor
  layers: Descriptor[]
  annotations?: Record<string, string>
}

/** `host[:port]/path@sha256:...` or `host[:port]/path:tag`, split. */
export function parseReference (reference: string, insecure: boolean): { repository: Repository, digest?: string, tag?: string } {
  const at = reference.indexOf('@')
  const name = at < 0 ? reference : reference.slice(0, at)
  const slash = name.indexOf('/')
  if (slash < 0) throw new Error(`${reference} names no registry host (host/repository)`)
  const host = name.slice(0, slash)
  let path = name.slice(slash + 1)
  let tag: string | undefined
  const colon = path.lastIndexOf(':')
  if (colon >= 0) {
    tag = path.slice(colon + 1)
    path = path.slice(0, colon)
  }
  const digest = at < 0 ? undefined : reference.slice(at + 1)
  if (digest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`${reference}: the digest is not sha256:<64 hex digits>`)
  return { repository: { host, name: path, insecure }, ...(digest === undefined ? {} : { digest }), ...(tag === undefined ? {} : { tag }) }
}

export function sha256Digest (bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

function base (repository: Repository): string {
  return `${repository.insecure ? 'http' : 'https'}://${repository.host}/v2/${repository.name}`
}

async function answered (response: Response, what: string): Promise<Response> {
  if (response.ok) return response
  const text = (await response.text()).slice(0, 300)
  if (response.status === 401) throw new Error(`${what}: the registry asks for a login, which this signer does not do (sign with cosign there instead)`)
  throw new Error(`${what}: the registry answered ${response.status} ${text}`)
}

/** Uploads `bytes` as a blob (in one piece); resolves to its descriptor. */
export async function putBlob (repository: Repository, bytes: Buffer, mediaType: string): Promise<Descriptor> {
  const digest = sha256Digest(bytes)
  const started = await answered(await fetch(`${base(repository)}/blobs/uploads/`, { method: 'POST' }), `starting an upload to ${repository.name}`)
  const location = new URL(started.headers.get('location') ?? '', `${base(repository)}/`)
  location.searchParams.set('digest', digest)
  await answered(await fetch(location, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: Uint8Array.from(bytes) }), `uploading ${digest}`)
  return { mediaType, size: bytes.length, digest }
}

export async function putManifest (repository: Repository, tag: string, manifest: ImageManifest): Promise<string> {
  const body = Buffer.from(JSON.stringify(manifest))
  await answered(await fetch(`${base(repository)}/manifests/${tag}`, { method: 'PUT', headers: { 'content-type': manifest.mediaType }, body: Uint8Array.from(body) }), `putting ${repository.name}:${tag}`)
  return sha256Digest(body)
}

/** The manifest a tag names, or undefined when there is none. */
export async function getManifest (repository: Repository, tag: string): Promise<ImageManifest | undefined> {
  const response = await fetch(`${base(repository)}/manifests/${tag}`, { headers: { accept: OCI_MANIFEST } })
  if (response.status === 404) {
    await response.body?.cancel()
    return undefined
  }
  return await (await answered(response, `reading ${repository.name}:${tag}`)).json() as ImageManifest
}

/** A blob's bytes, checked against its digest. */
export async function getBlob (repository: Repository, digest: string): Promise<Buffer> {
  const response = await answered(await fetch(`${base(repository)}/blobs/${digest}`), `reading ${digest}`)
  const bytes = Buffer.from(await response.arrayBuffer())
  if (sha256Digest(bytes) !== digest) throw new Error(`the registry's blob ${digest} does not match its digest`)
  return bytes
}
