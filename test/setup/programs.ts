// npm test's first step (package.json's pretest): makes sure the programs the suite drives are
// installed. Missing ones are installed when this machine can (Debian, as root); otherwise npm
// test stops here with the command to run. test/setup/programs-plan.ts decides which.
import { spawnSync } from 'node:child_process'
import { findProgram, suitePrograms } from '../helpers/programs.js'
import { planPrograms } from './programs-plan.js'
import { requireSupportedNode } from '../../src/node-version.js'

requireSupportedNode()

const hasAptGet = process.platform === 'linux' && findProgram('apt-get') !== undefined
const machine = () => ({
  found: (program: string) => findProgram(program) !== undefined,
  hasAptGet,
  isRoot: process.getuid?.() === 0,
  inSources: (pkg: string) => hasAptGet && spawnSync('apt-cache', ['madison', pkg], { encoding: 'utf8' }).stdout.trim() !== ''
})

const aptGet = (args: string[]): void => {
  const result = spawnSync('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8' })
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout}${result.stderr}npm test: apt-get ${args.join(' ')} failed (exit ${String(result.status)}).\n`)
    process.exit(1)
  }
}

let plan = planPrograms(machine())
if (plan.action === 'install') {
  aptGet(['update', '-qq'])
  // With the package lists fresh, which packages the sources offer is known (kubectl's fallback).
  plan = planPrograms(machine())
}
if (plan.action === 'stop') {
  process.stderr.write(`${plan.message}\n`)
  process.exit(1)
}
if (plan.action === 'install') {
  process.stdout.write(`${plan.message}\n`)
  aptGet(['install', '-y', '-qq', '--no-install-recommends', ...plan.packages])
  // Debian's packages start services of their own on install; the tests start their own copies.
  for (const service of ['nginx', 'redis-server', 'prometheus', 'docker-registry'].filter((name) => plan.packages.includes(name))) {
    spawnSync('service', [service, 'stop'], { stdio: 'ignore' })
  }
  const stillMissing = Object.keys(suitePrograms).filter((program) => findProgram(program) === undefined)
  if (stillMissing.length > 0) {
    process.stderr.write(`npm test: ${stillMissing.join(', ')} still not found after apt-get install ${plan.packages.join(' ')}.\n`)
    process.exit(1)
  }
}

// docker/kubernetes/ uses kustomize components, which kubectl has from 1.21; Debian's
// kubernetes-client (the fallback above) is 1.20. Said here, with what to do, before any test runs.
const kubectl = findProgram('kubectl')
if (kubectl !== undefined) {
  const version = spawnSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' })
  const minor = Number.parseInt((JSON.parse(version.stdout || '{}') as { clientVersion?: { minor?: string } }).clientVersion?.minor ?? '0', 10)
  if (minor < 21) {
    process.stderr.write(`npm test: ${kubectl} is kubectl 1.${minor}; docker/kubernetes/ needs 1.21 or later. Install Kubernetes's own package (https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/), e.g. as root: apt-get remove -y kubernetes-client && curl -fsSLo /usr/local/bin/kubectl "https://dl.k8s.io/release/$(curl -fsSL https://dl.k8s.io/release/stable.txt)/bin/linux/amd64/kubectl" && chmod +x /usr/local/bin/kubectl\n`)
    process.exit(1)
  }
}
