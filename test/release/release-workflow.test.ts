// The public CI host's release workflow (.github/workflows/release.yml) calls the one release
// command on a version tag, after the suite, with what that command needs: Node 24, npm's
// provenance (id-token), the registry to push to, and the release page made from its outputs.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'

interface Step { run?: string, uses?: string, with?: Record<string, unknown>, env?: Record<string, string> }
interface Job { needs?: string, permissions?: Record<string, string>, steps: Step[] }
const workflow = parse(await readFile(new URL('../../.github/workflows/release.yml', import.meta.url), 'utf8')) as { on: { push: { tags: string[] } }, permissions: Record<string, string>, jobs: Record<string, Job> }

t.test('a version tag runs the suite, then npm run release with the tag\'s version', async (t) => {
  t.same(workflow.on.push.tags, ['v[0-9]+.[0-9]+.[0-9]+*'], 'only version tags')
  t.same(workflow.permissions, { contents: 'read' }, 'nothing more than reading, unless a job says so')
  const { test, release } = workflow.jobs
  t.ok(test?.steps.some((step) => step.run === 'CI=true bash .ci/run'), 'the suite, as CI runs it')
  t.equal(release?.needs, 'test')
  t.same(release?.permissions, { contents: 'write', packages: 'write', 'id-token': 'write' })
  for (const job of [test, release]) t.ok(job?.steps.some((step) => step.uses?.startsWith('actions/setup-node@') === true && step.with?.['node-version'] === 24), 'on Node 24')
  const cut = release?.steps.find((step) => step.run?.startsWith('npm run release') === true)
  t.match(cut?.run, /^npm run release -- "\$\{VERSION#v\}" --image "ghcr\.io\/\$\{GITHUB_REPOSITORY,,\}" --npm-registry https:\/\/registry\.npmjs\.org\/ --provenance$/)
  t.same(Object.keys(cut?.env ?? {}).sort(), ['CONTAINER_ENGINE', 'NPM_TOKEN'])
  const page = release?.steps.find((step) => step.run?.includes('gh release create') === true)
  t.match(page?.run, /--notes-file "\$out\/notes\.md" "\$out\/sbom\.cdx\.json"/, 'the changelog\'s section is the notes, the SBOM beside them')
})
