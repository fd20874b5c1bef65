// The public CI host's release workflow (.github/workflows/release.yml), held to least privilege:
// the suite and the build run with no credential at all (a checkout that keeps no token, nothing
// but reading), and the one job that publishes runs nothing of the repository's, holds only what
// it needs, and hands each credential to the one step that uses it. Every action is pinned by
// commit. The publishing itself (cosign keyless, npm's trusted publishing) runs only there.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'

interface Step { name?: string, run?: string, uses?: string, with?: Record<string, unknown>, env?: Record<string, string> }
interface Job { needs?: string, permissions?: Record<string, string>, env?: Record<string, string>, steps: Step[] }
const text = await readFile(new URL('../../.github/workflows/release.yml', import.meta.url), 'utf8')
const workflow = parse(text) as { on: { push: { tags: string[] } }, permissions: Record<string, string>, jobs: Record<string, Job> }
const { test, build, publish } = workflow.jobs
const steps = (job: Job | undefined): Step[] => job?.steps ?? []
const runs = (job: Job | undefined): string => steps(job).map((step) => step.run ?? '').join('\n')

t.test('a version tag runs the suite, then the build, then the publishing, in that order', async (t) => {
  t.same(workflow.on.push.tags, ['v[0-9]+.[0-9]+.[0-9]+*'], 'only version tags')
  t.same(Object.keys(workflow.jobs), ['test', 'build', 'publish'])
  t.equal(build?.needs, 'test')
  t.equal(publish?.needs, 'build')
  t.ok(steps(test).some((step) => step.run === 'CI=true bash .ci/run'), 'the suite, as CI runs it')
  for (const job of [test, build, publish]) t.ok(steps(job).some((step) => step.uses?.startsWith('actions/setup-node@') === true && step.with?.['node-version'] === 24), 'on Node 24')
})

t.test('nothing is granted unless a job says so, and only publish may write', async (t) => {
  t.same(workflow.permissions, {}, 'no default permission')
  t.same(test?.permissions, { contents: 'read' })
  t.same(build?.permissions, { contents: 'read' })
  t.same(publish?.permissions, { contents: 'write', packages: 'write', 'id-token': 'write' })
})

t.test('test and build hold no credential: checkouts keep no token, no secret is named', async (t) => {
  for (const [name, job] of [['test', test], ['build', build]] as const) {
    const checkouts = steps(job).filter((step) => step.uses?.startsWith('actions/checkout@') === true)
    t.equal(checkouts.length, 1, `${name}: one checkout`)
    t.equal(checkouts[0]?.with?.['persist-credentials'], false, `${name}: the checkout keeps no token`)
    t.notMatch(JSON.stringify(job), /secrets\./, `${name}: no secret`)
  }
})

t.test('build makes what needs no credential, for amd64 and arm64, and hands it on', async (t) => {
  t.ok(steps(build).some((step) => step.run === 'npm ci --no-audit --no-fund'), 'npm ci (and its lifecycle scripts) run here, with nothing to steal')
  const prepare = steps(build).find((step) => step.run?.startsWith('npm run release') === true)
  t.match(prepare?.run, /^npm run release -- "\$\{VERSION#v\}" --stage prepare --image "ghcr\.io\/\$\{GITHUB_REPOSITORY,,\}" --platforms linux\/amd64,linux\/arm64$/)
  t.ok(steps(build).some((step) => step.uses?.startsWith('docker/setup-qemu-action@') === true), 'arm64 under emulation')
  t.ok(steps(build).some((step) => step.uses?.startsWith('actions/upload-artifact@') === true && step.with?.path === 'dist/release/'), 'what it made, as an artifact')
})

t.test('publish runs nothing of the repository, and each credential is in the step that uses it', async (t) => {
  t.notOk(steps(publish).some((step) => step.uses?.startsWith('actions/checkout@') === true), 'no checkout')
  t.notMatch(runs(publish), /\bnpm (ci|install|i|run)\b|\bnpx\b|\btsx\b|\bnode\b/, 'no install, no script of the repository')
  t.ok(steps(publish).some((step) => step.uses?.startsWith('actions/download-artifact@') === true), 'what build made')
  const withSecrets = steps(publish).filter((step) => /secrets\./.test(JSON.stringify(step)))
  t.same(withSecrets.map((step) => step.name), ['The image, pushed by digest, signed and its SBOM attested', 'The release page'], 'the registry token in the push, the forge\'s token on the release page, nowhere else')
  t.notMatch(JSON.stringify(publish?.env ?? {}), /secrets\./, 'no secret job-wide')
  t.notMatch(text, /NPM_TOKEN|NODE_AUTH_TOKEN/, 'no npm token anywhere: trusted publishing')

  const image = steps(publish).find((step) => step.name === 'The image, pushed by digest, signed and its SBOM attested')?.run ?? ''
  t.match(image, /skopeo copy --all --preserve-digests .* --digestfile "\$out\/digest" "oci-archive:\$out\/image\.oci\.tar"/, 'the archive build made, every platform, digests kept')
  t.match(image, /cosign sign --yes "\$image@\$\(cat "\$out\/digest"\)"/, 'signed by digest, keyless')
  t.match(image, /cosign attest --yes --type cyclonedx --predicate "\$out\/sbom\.cdx\.json" "\$image@\$\(cat "\$out\/digest"\)"/, 'the SBOM attested')
  t.match(image, /trap 'rm -rf "\$DOCKER_CONFIG"' EXIT/, 'the registry login is gone when the step ends')
  const npm = steps(publish).find((step) => step.run?.startsWith('npm publish') === true)
  t.match(npm?.run, /--provenance/, 'with provenance')
  t.same(npm?.env, undefined, 'no token: npm\'s trusted publishing, by the job\'s OIDC token')
  const page = steps(publish).find((step) => step.run?.includes('gh release create') === true)
  t.match(page?.run, /--notes-file "\$out\/notes\.md" "\$out\/sbom\.cdx\.json"/, 'the changelog\'s section is the notes, the SBOM beside them')
})

t.test('every action is pinned by commit, with the version it is', async (t) => {
  const uses = [...text.matchAll(/uses: (\S+)(.*)/g)]
  t.ok(uses.length >= 8)
  for (const [, action = '', comment = ''] of uses) {
    t.match(action, /^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/, `${action}: a commit, not a tag`)
    t.match(comment, /^ # v\d+\.\d+\.\d+$/, `${action}: its version said`)
  }
})
