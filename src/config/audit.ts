// Where the audit events go (AUDIT_LOG, src/audit/audit-events.ts): into the log stream, a file of
// their own, or nowhere.
import { isAbsolute } from 'node:path'
import type { DeclaredReader } from './declared-reader.js'

export type AuditLog = { to: 'stdout' } | { to: 'file', path: string } | { to: 'off' }

export function readAuditLog (read: DeclaredReader): AuditLog {
  const value = read.string('AUDIT_LOG')
  if (value === 'stdout') return { to: 'stdout' }
  if (value === 'off') return { to: 'off' }
  if (!isAbsolute(value) || value.includes('\0')) {
    read.problem('AUDIT_LOG', `must be stdout, off or an absolute file path, got "${value}"`)
    return { to: 'stdout' }
  }
  return { to: 'file', path: value }
}
