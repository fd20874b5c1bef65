// A git repository of a test's own, clean, for the release command to read its commit, its state
// and its tags from (GIT_DIR, GIT_WORK_TREE): a test cutting this tree's version must not depend on where this checkout's own tags
// point (once a version is released, its tag names the release commit, not the one under test).
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)

export interface ScratchRepository {
  /** The environment that points git at it. */
  env: Record<string, string>
  /** A new empty commit; resolves to its id. */
  commit: () => Promise<string>
  /** Tags the commit named, as a release tag is made. */
  tag: (name: string, commit: string) => Promise<void>
}

export async function scratchRepository (dir: string): Promise<ScratchRepository> {
  const tree = join(dir, 'scratch-tree')
  const env = {
    GIT_DIR: join(tree, '.git'),
    GIT_WORK_TREE: tree,
    // No one's own settings: a global commit.gpgSign, say, would stall the commits below.
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.org',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.org'
  }
  const git = async (args: string[]): Promise<string> => (await exec('git', args, { env: { ...process.env, ...env } })).stdout.trim()
  await git(['init', '--quiet', tree])
  const repository: ScratchRepository = {
    env,
    commit: async () => {
      await git(['commit', '--quiet', '--allow-empty', '--message', 'scratch'])
      return await git(['rev-parse', 'HEAD'])
    },
    tag: async (name, commit) => { await git(['tag', '--annotate', '--message', name, name, commit]) }
  }
  await repository.commit()
  return repository
}
