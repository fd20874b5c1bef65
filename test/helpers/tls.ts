// A self-signed certificate for localhost made with the real openssl, as an operator would for
// the compose setup, in a temporary directory. Clients trust it by passing `cert` as their CA.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { requireProgram } from './programs.js'

const run = promisify(execFile)

export interface SelfSignedCert {
  dir: string
  certFile: string
  keyFile: string
  /** The certificate (PEM): the trust anchor for clients. */
  cert: string
  remove: () => Promise<void>
}

export async function makeSelfSignedCert (hostName = 'localhost'): Promise<SelfSignedCert> {
  const openssl = requireProgram('openssl')
  const dir = await mkdtemp(join(tmpdir(), 'media-bff-tls-'))
  const certFile = join(dir, 'tls.crt')
  const keyFile = join(dir, 'tls.key')
  try {
    // A P-256 key is quick to make; the SAN is what clients check, the CN is only a label.
    await run(openssl, [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-days', '2', '-subj', `/CN=${hostName}`,
      '-addext', `subjectAltName=DNS:${hostName},IP:127.0.0.1`,
      '-keyout', keyFile, '-out', certFile
    ])
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  return {
    dir,
    certFile,
    keyFile,
    cert: await readFile(certFile, 'utf8'),
    remove: async () => { await rm(dir, { recursive: true, force: true }) }
  }
}
