// The image: built from docker/Dockerfile with its OCI annotations (version, revision, when, and
// the source repository), pushed under the release's version, and read back for the digest it
// got and the SBOM it carries (/app/sbom.cdx.json, made while it was built). Any engine that
// speaks docker's command line will do (docker, podman); `engineArgs` go before every command.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from './run.js'

export interface Engine { command: string, args: readonly string[], insecureRegistry: boolean }

export interface Annotations { version: string, revision: string, created: string, source: string }

export interface PushedImage { tag: string, digest: string }

export async function buildImage (engine: Engine, root: string, repository: string, annotations: Annotations): Promise<string> {
  const tag = `${repository}:${annotations.version}`
  const buildArgs = Object.entries(annotations).flatMap(([name, value]) => ['--build-arg', `${name.toUpperCase()}=${value}`])
  // The same values as labels of the build itself: buildah (podman 4.3) takes the Dockerfile's
  // LABEL step from its cache of a build with other ARG values, leaving the annotations empty;
  // --label is set on the image whatever the cache holds.
  const labels = Object.entries(annotations).flatMap(([name, value]) => ['--label', `org.opencontainers.image.${name}=${value}`])
  await run(engine.command, [...engine.args, 'build', '-f', 'docker/Dockerfile', ...buildArgs, ...labels, '-t', tag, '.'], { cwd: root, echo: true })
  return tag
}

/** Pushes `tag`; resolves to the reference by digest, repository@sha256:..., that names exactly what was pushed. */
export async function pushImage (engine: Engine, tag: string): Promise<PushedImage> {
  const repository = tag.slice(0, tag.lastIndexOf(':'))
  const tls = engine.insecureRegistry && /podman/.test(engine.command) ? ['--tls-verify=false'] : []
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-release-'))
  try {
    const digestFile = join(dir, 'digest')
    try {
      await run(engine.command, [...engine.args, 'push', ...tls, '--digestfile', digestFile, tag], { echo: true })
      return { tag, digest: `${repository}@${(await readFile(digestFile, 'utf8')).trim()}` }
    } catch (error) {
      // docker has no --digestfile: it records what it pushed among the image's RepoDigests.
      if (!/unknown flag|flag provided but not defined/i.test((error as Error).message)) throw error
      await run(engine.command, [...engine.args, 'push', ...tls, tag], { echo: true })
      const digests = JSON.parse(await run(engine.command, [...engine.args, 'image', 'inspect', '--format', '{{json .RepoDigests}}', tag])) as string[]
      const digest = digests.find((reference) => reference.startsWith(`${repository}@`))
      if (digest === undefined) throw new Error(`${engine.command} pushed ${tag} but names no digest for it (${digests.join(', ')})`)
      return { tag, digest }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The SBOM the image was built with, read by the image's own Node. */
export async function imageSbom (engine: Engine, tag: string): Promise<string> {
  return await run(engine.command, [...engine.args, 'run', '--rm', '--network', 'none', '--entrypoint', 'node', tag, '-e', 'process.stdout.write(require("node:fs").readFileSync("sbom.cdx.json", "utf8"))'])
}
