// The image: built from docker/Dockerfile with its OCI annotations (version, revision, when, and
// the source repository), pushed under the release's version, and read back for the digest it
// got and the SBOM it carries (/app/sbom.cdx.json, made while it was built). Any engine that
// speaks docker's command line will do (docker, podman); `engineArgs` go before every command.
//
// One platform (the engine's own) is an image; several (`--platforms linux/amd64,linux/arm64`)
// are an index of one image each, which docker builds with buildx and podman as a manifest list.
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from './run.js'

export interface Engine {
  command: string
  args: readonly string[]
  insecureRegistry: boolean
  /** The base image instead of the Dockerfile's pinned one (NODE_IMAGE: a mirror of it, say). */
  nodeImage?: string
}

export interface Annotations { version: string, revision: string, created: string, source: string }

export interface PushedImage { tag: string, digest: string, platforms: readonly string[] }

/** Why the engine cannot be used, in one line; undefined when it answers. */
export function missingEngine (engine: Engine): string | undefined {
  const tried = spawnSync(engine.command, [...engine.args, '--version'], { stdio: 'ignore' })
  if (tried.error === undefined && tried.status === 0) return undefined
  return `no container engine found: ${engine.command} ${tried.error === undefined ? `--version exited ${String(tried.status)}` : 'is not on PATH'}; install docker or podman, or name one with --engine (or CONTAINER_ENGINE)`
}

const isPodman = (engine: Engine): boolean => /podman/.test(engine.command)

function buildArguments (engine: Engine, annotations: Annotations): string[] {
  const values: Record<string, string> = { ...(engine.nodeImage === undefined ? {} : { NODE_IMAGE: engine.nodeImage }) }
  for (const [name, value] of Object.entries(annotations)) values[name.toUpperCase()] = value
  const buildArgs = Object.entries(values).flatMap(([name, value]) => ['--build-arg', `${name}=${value}`])
  // The same values as labels of the build itself: buildah (podman 4.3) takes the Dockerfile's
  // LABEL step from its cache of a build with other ARG values, leaving the annotations empty;
  // --label is set on the image whatever the cache holds.
  const labels = Object.entries(annotations).flatMap(([name, value]) => ['--label', `org.opencontainers.image.${name}=${value}`])
  return ['-f', 'docker/Dockerfile', ...buildArgs, ...labels]
}

/**
 * Builds the release's image and pushes it as <repository>:<version>; resolves to it by tag and by
 * the digest it got. `platforms` empty: the engine's own platform.
 */
export async function buildAndPush (engine: Engine, root: string, repository: string, annotations: Annotations, platforms: readonly string[]): Promise<PushedImage> {
  const tag = `${repository}:${annotations.version}`
  const tls = engine.insecureRegistry && isPodman(engine) ? ['--tls-verify=false'] : []
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-'))
  try {
    const digestFile = join(dir, 'digest')
    if (platforms.length === 0) {
      await run(engine.command, [...engine.args, 'build', ...buildArguments(engine, annotations), '-t', tag, '.'], { cwd: root, echo: true })
      return { tag, digest: await pushSingle(engine, tag, tls, digestFile), platforms }
    }
    const platform = platforms.join(',')
    if (isPodman(engine)) {
      // A manifest list of one image per platform, pushed with every image in it.
      await run(engine.command, [...engine.args, 'manifest', 'rm', tag]).catch(() => '')
      await run(engine.command, [...engine.args, 'build', ...buildArguments(engine, annotations), '--platform', platform, '--manifest', tag, '.'], { cwd: root, echo: true })
      await run(engine.command, [...engine.args, 'manifest', 'push', ...tls, '--all', '--digestfile', digestFile, tag, `docker://${tag}`], { echo: true })
    } else {
      // buildx pushes as it builds: an engine holds no index of its own.
      const metadata = join(dir, 'metadata.json')
      await run(engine.command, [...engine.args, 'buildx', 'build', ...buildArguments(engine, annotations), '--platform', platform, '--metadata-file', metadata, '--push', '-t', tag, '.'], { cwd: root, echo: true })
      const digest = (JSON.parse(await readFile(metadata, 'utf8')) as Record<string, unknown>)['containerimage.digest']
      if (typeof digest !== 'string') throw new Error(`${engine.command} buildx pushed ${tag} but its metadata names no digest`)
      return { tag, digest: `${repository}@${digest}`, platforms }
    }
    return { tag, digest: `${repository}@${(await readFile(digestFile, 'utf8')).trim()}`, platforms }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Pushes one image; resolves to the reference by digest that names exactly what was pushed. */
async function pushSingle (engine: Engine, tag: string, tls: readonly string[], digestFile: string): Promise<string> {
  const repository = tag.slice(0, tag.lastIndexOf(':'))
  try {
    await run(engine.command, [...engine.args, 'push', ...tls, '--digestfile', digestFile, tag], { echo: true })
    return `${repository}@${(await readFile(digestFile, 'utf8')).trim()}`
  } catch (error) {
    // docker has no --digestfile: it records what it pushed among the image's RepoDigests.
    if (!/unknown flag|flag provided but not defined/i.test((error as Error).message)) throw error
    await run(engine.command, [...engine.args, 'push', ...tls, tag], { echo: true })
    const digests = JSON.parse(await run(engine.command, [...engine.args, 'image', 'inspect', '--format', '{{json .RepoDigests}}', tag])) as string[]
    const digest = digests.find((reference) => reference.startsWith(`${repository}@`))
    if (digest === undefined) throw new Error(`${engine.command} pushed ${tag} but names no digest for it (${digests.join(', ')})`)
    return digest
  }
}

/**
 * Builds the release's image as an OCI archive at `archive` (one image per platform, in an
 * index), pushing nothing: what a job without credentials makes for one that has them.
 */
export async function buildArchive (engine: Engine, root: string, repository: string, annotations: Annotations, platforms: readonly string[], archive: string): Promise<string> {
  const tag = `${repository}:${annotations.version}`
  const platform = platforms.length === 0 ? [] : ['--platform', platforms.join(',')]
  if (isPodman(engine)) {
    await run(engine.command, [...engine.args, 'manifest', 'rm', tag]).catch(() => '')
    await run(engine.command, [...engine.args, 'build', ...buildArguments(engine, annotations), ...platform, '--manifest', tag, '.'], { cwd: root, echo: true })
    await run(engine.command, [...engine.args, 'manifest', 'push', '--all', tag, `oci-archive:${archive}`], { echo: true })
  } else {
    await run(engine.command, [...engine.args, 'buildx', 'build', ...buildArguments(engine, annotations), ...platform, '--output', `type=oci,dest=${archive}`, '-t', tag, '.'], { cwd: root, echo: true })
  }
  return archive
}

/**
 * The SBOM the image carries (/app/sbom.cdx.json), from the Dockerfile's `sbom` stage: the same
 * build, cached, written out as a file rather than run.
 */
export async function exportSbom (engine: Engine, root: string, annotations: Annotations): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-sbom-'))
  try {
    await run(engine.command, [...engine.args, 'build', ...buildArguments(engine, annotations), '--target', 'sbom', '--output', `type=local,dest=${dir}`, '.'], { cwd: root, echo: true })
    return await readFile(join(dir, 'sbom.cdx.json'), 'utf8')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
