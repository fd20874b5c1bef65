// The audit events (src/audit/audit-events.ts): one JSON line per security event, written whatever
// LOG_LEVEL says. AUDIT_LOG=stdout (the default) puts them into the log stream, where the log
// destination keeps room for them that ordinary lines cannot take (src/log-destination.ts); a
// path, into a file of their own; off, nowhere. Refusals, which anyone can cause at will, are
// recorded at most 20 a second each, with how many were left out, so a flood of them cannot push
// out the events that matter.
import fp from 'fastify-plugin'
import { openSync } from 'node:fs'
import pino from 'pino'
import type { FastifyRequest } from 'fastify'
import { auditLine, auditThrottle, type AuditDetails, type AuditEvent } from '../src/audit/audit-events.js'
import { logDestination } from '../src/log-destination.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Records a security event; `request`: the one it happened in (its id and client address). */
    audit: (event: AuditEvent, details?: AuditDetails, request?: FastifyRequest) => void
  }
}

export default fp(async (app) => {
  const { auditLog } = app.config
  const logger = auditLog.to === 'off'
    ? undefined
    : auditLog.to === 'file'
      ? pino({ level: 'info' }, logDestination(openSync(auditLog.path, 'a', 0o640)))
      : app.log.child({}, { level: 'info' })
  const throttle = auditThrottle()
  app.decorate('audit', (event: AuditEvent, details: AuditDetails = {}, request?: FastifyRequest) => {
    if (logger === undefined) return
    const { record, suppressed } = throttle(event)
    if (!record) return
    const context = request === undefined ? {} : { reqId: request.id, client: request.ip }
    logger.info(auditLine(event, { ...context, ...details }, suppressed), `audit: ${event}`)
  })
}, { name: 'audit', dependencies: ['config'] })
