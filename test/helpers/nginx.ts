// Runs the real nginx with the production docker/nginx.conf, as the current user, in a temporary
// prefix directory. Only what must differ outside a container is swapped: ports, upstream
// addresses, certificate and every file path nginx writes. Each swap must find its directive,
// so a change to the file that breaks the test setup fails loudly instead of being skipped.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { requireProgram } from './programs.js'
import { freePort, waitForPort } from './ports.js'

export const productionNginxConf = fileURLToPath(new URL('../../docker/nginx.conf', import.meta.url))
/** The example serving a site and media-bff (under /media-bff) on one origin. */
export const sameOriginNginxConf = fileURLToPath(new URL('../../docker/nginx-same-origin.conf', import.meta.url))

export interface NginxOptions {
  /** host:port of each media-bff replica, in order. */
  upstreams: string[]
  certFile: string
  keyFile: string
  httpsPort?: number
  httpPort?: number
  /** Test-only directives added to the https server block (e.g. a header naming the upstream). */
  extraServerDirectives?: string[]
  /** The configuration to run: docker/nginx.conf unless another example is named. */
  confFile?: string
  /** For an example that serves a site: the folder of the site's files, in place of /srv/site. */
  siteRoot?: string
  /** For an example with the site's own server: its host:port, in place of the example's. */
  siteServer?: string
}

export interface RunningNginx {
  httpsPort: number
  httpPort: number
  /** https://localhost:port */
  httpsUrl: string
  httpUrl: string
  dir: string
  /** The configuration nginx really runs. */
  conf: string
  errorLog: () => Promise<string>
  accessLog: () => Promise<string>
  /** Graceful stop (SIGQUIT), waiting for the master to exit; also removes the directory. */
  stop: () => Promise<void>
}

interface TestPaths { dir: string, httpsPort: number, httpPort: number, version: number[], runAsRoot: boolean }

/** docker/nginx.conf with the container-only settings swapped for a test's own. */
export function testNginxConf (source: string, options: NginxOptions, paths: TestPaths): string {
  let conf = source
  const swap = (pattern: RegExp, replacement: string, what: string): void => {
    const count = conf.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))?.length ?? 0
    if (count === 0) throw new Error(`the nginx example: no ${what} to adapt for the test (${pattern.source})`)
    conf = conf.replace(pattern, replacement)
  }
  const file = (name: string): string => join(paths.dir, name)

  // A master started by root hands the workers to `user`; any other user runs them itself.
  swap(/^user .*;$/m, paths.runAsRoot ? 'user root;' : '', 'user directive')
  // One worker: the two replicas are then used in strict alternation, which tests can rely on.
  swap(/^worker_processes .*;$/m, 'worker_processes 1;', 'worker_processes')
  swap(/^pid .*;$/m, `pid ${file('nginx.pid')};\nlock_file ${file('nginx.lock')};`, 'pid')
  // Only the paths change: the level and the log format are the production ones, whose
  // promise (no query string in either log) test/production/proxy.test.ts checks.
  swap(/^error_log \S+ (\w+);$/m, `error_log ${file('error.log')} $1;`, 'error_log')
  swap(/^(\s*)access_log \S+ (\w+);$/m, `$1access_log ${file('access.log')} $2;\n` + [
    // The packaged nginx was built with temp paths under /var/lib/nginx; keep them in the prefix.
    'client_body_temp_path', 'proxy_temp_path', 'fastcgi_temp_path', 'uwsgi_temp_path', 'scgi_temp_path'
  ].map((directive) => `$1${directive} ${file(directive.replace('_path', ''))};`).join('\n'), 'access_log')
  // No Docker DNS here, and the replicas are plain addresses: docker/nginx.conf's need nginx
  // 1.27.3 (`resolve`), nginx-same-origin.conf's are fixed addresses already, taken as they are.
  if (/^\s*resolver /m.test(conf)) swap(/^\s*resolver .*;$\n/m, '', 'resolver')
  swap(/^\s*server [^\s;]+:\d+ .*;$\n/gm, '', 'upstream server')
  swap(/^(\s*)zone media_bff .*;$/m, `$1zone media_bff 64k;\n${options.upstreams.map((address) => `$1server ${address} max_fails=1 fail_timeout=10s;`).join('\n')}`, 'upstream zone')
  swap(/^(\s*)listen 8080 /m, `$1listen 127.0.0.1:${paths.httpPort} `, 'http listen')
  swap(/:8443\$request_uri/, `:${paths.httpsPort}$request_uri`, 'https redirect port')
  swap(/^(\s*)listen 8443 ssl /m, `$1listen 127.0.0.1:${paths.httpsPort} ssl `, 'https listen')
  swap(/ssl_certificate \/etc\/nginx\/certs\/tls\.crt;/, `ssl_certificate ${options.certFile};`, 'certificate')
  swap(/ssl_certificate_key \/etc\/nginx\/certs\/tls\.key;/, `ssl_certificate_key ${options.keyFile};`, 'certificate key')
  // `http2 on;` arrived in nginx 1.25.1; older ones take it as a listen parameter.
  if (compareVersions(paths.version, [1, 25, 1]) < 0 && /^\s*http2 on;$/m.test(conf)) {
    swap(/^\s*http2 on;$\n/m, '', 'http2')
    conf = conf.replace(`listen 127.0.0.1:${paths.httpsPort} ssl `, `listen 127.0.0.1:${paths.httpsPort} ssl http2 `)
  }
  if (options.siteServer !== undefined) swap(/^(\s*)server 10\.0\.0\.21:8000;$/m, `$1server ${options.siteServer};`, 'site server')
  if (options.siteRoot !== undefined) swap(/^(\s*)root \/srv\/site;$/m, `$1root ${options.siteRoot};`, 'site root')
  if (options.extraServerDirectives !== undefined && options.extraServerDirectives.length > 0) {
    // After the key: the one directive only the https server block has.
    swap(/^(\s*)ssl_certificate_key .*;$/m, `$&\n${options.extraServerDirectives.map((line) => `$1${line}`).join('\n')}`, 'https server block')
  }
  return conf
}

export async function nginxVersion (binary = requireProgram('nginx')): Promise<number[]> {
  const { stderr } = await promisify(execFile)(binary, ['-v'])
  const match = /nginx\/(\d+)\.(\d+)\.(\d+)/.exec(stderr)
  if (match === null) throw new Error(`cannot read the nginx version from: ${stderr}`)
  return match.slice(1).map(Number)
}

function compareVersions (a: number[], b: number[]): number {
  for (let i = 0; i < b.length; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0)
    if (difference !== 0) return difference
  }
  return 0
}

export async function startNginx (options: NginxOptions): Promise<RunningNginx> {
  const binary = requireProgram('nginx')
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-nginx-'))
  const httpsPort = options.httpsPort ?? await freePort()
  const httpPort = options.httpPort ?? await freePort()
  const paths: TestPaths = { dir, httpsPort, httpPort, version: await nginxVersion(binary), runAsRoot: process.getuid?.() === 0 }
  const conf = testNginxConf(await readFile(options.confFile ?? productionNginxConf, 'utf8'), options, paths)
  const confFile = join(dir, 'nginx.conf')
  await writeFile(confFile, conf)

  // -e: the packaged binary opens its built-in error log before reading the configuration.
  const child: ChildProcess = spawn(binary, ['-p', `${dir}/`, '-c', confFile, '-e', join(dir, 'error.log'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const killOnExit = (): void => { child.kill('SIGKILL') }
  process.once('exit', killOnExit)
  const exited = new Promise<void>((resolve) => { child.once('exit', () => resolve()) })
  const errorLog = async (): Promise<string> => await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
    await rm(dir, { recursive: true, force: true })
  }

  try {
    await Promise.race([
      Promise.all([waitForPort(httpsPort), waitForPort(httpPort)]),
      exited.then(() => { throw new Error('nginx exited') })
    ])
  } catch (error) {
    const log = await errorLog()
    await stop()
    throw new Error(`nginx did not start: ${(error as Error).message}\n${stderr}\n${log}\n--- configuration ---\n${conf}`)
  }
  return {
    httpsPort,
    httpPort,
    httpsUrl: `https://localhost:${httpsPort}`,
    httpUrl: `http://localhost:${httpPort}`,
    dir,
    conf,
    errorLog,
    accessLog: async () => await readFile(join(dir, 'access.log'), 'utf8').catch(() => ''),
    stop
  }
}
