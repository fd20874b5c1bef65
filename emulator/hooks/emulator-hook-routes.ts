// Test and operator hooks under /__emulator/ on the API origin. They exist only in the emulator
// (the real service has nothing like them) and need no authentication: they are how tests look
// inside the service and make it misbehave. Never expose an emulator beyond a test network.
import type { FastifyInstance } from 'fastify'
import { copyCounters, zeroCounters } from '../counters.js'
import type { EmulatorContext } from '../context.js'
import { findUser } from '../context.js'
import { parseFault } from '../faults.js'
import { fieldsOf } from '../http/body-parsers.js'
import { badRequest } from '../http/emulator-error.js'
import { sendJson } from '../http/replies.js'
import { applyRuntimeConfig, currentRuntimeConfig } from './runtime-config.js'
import { grantDirectly } from '../oauth/direct-grant.js'
import { parseScopeList } from '../scopes.js'

const prefix = '/__emulator'

/** Registered in a scope that reads bodies as fields (http/body-parsers.ts, acceptFields). */
export function emulatorHookRoutes (app: FastifyInstance, context: EmulatorContext): void {
  app.get(`${prefix}/counters`, async (_request, reply) => sendJson(reply, 200, copyCounters(context.counters)))

  app.post(`${prefix}/reset-counters`, async (_request, reply) => {
    Object.assign(context.counters, zeroCounters())
    return sendJson(reply, 200, copyCounters(context.counters))
  })

  app.get(`${prefix}/files`, async (_request, reply) => sendJson(reply, 200, {
    files: context.uploads.files().map((file) => ({
      file_id: file.fileId,
      ulid: file.ulid,
      user: file.userName,
      name: file.filename,
      folder_id: file.folderId,
      title: file.title,
      size: file.size,
      sha256: file.sha256,
      mime_type: file.mimeType,
      status: file.status,
      path: file.path
    }))
  }))

  app.get(`${prefix}/tokens`, async (_request, reply) => {
    const records = context.tokens.list()
    const view = (kind: 'access' | 'refresh'): Array<Record<string, unknown>> => records
      .filter((record) => record.kind === kind)
      .map((record) => ({
        token: record.token,
        user: record.userName,
        scope: record.scopes.join(' '),
        family: record.familyId,
        state: record.state,
        expires_at: Math.floor(record.expiresAt / 1000)
      }))
    return sendJson(reply, 200, {
      access_tokens: view('access'),
      refresh_tokens: view('refresh'),
      private_tokens: context.settings.users.map((user) => ({ user: user.name, token: user.privateToken }))
    })
  })

  app.post(`${prefix}/grants`, async (request, reply) => {
    const { user, scope } = fieldsOf(request)
    if (typeof user !== 'string') throw badRequest('user must be the name of a fixture user.')
    if (scope !== undefined && typeof scope !== 'string') throw badRequest('scope must be a space-separated list.')
    return sendJson(reply, 200, grantDirectly(context, user, parseScopeList(context.settings.scopes, scope ?? 'basic user.info')))
  })

  app.post(`${prefix}/revoke`, async (request, reply) => {
    const { user } = fieldsOf(request)
    if (user !== undefined && (typeof user !== 'string' || findUser(context, user) === undefined)) throw badRequest('user must be the name of a fixture user.')
    return sendJson(reply, 200, { revoked_grants: context.tokens.revokeUser(user) })
  })

  app.get(`${prefix}/faults`, async (_request, reply) => sendJson(reply, 200, { faults: context.faults.list() }))

  app.post(`${prefix}/faults`, async (request, reply) => {
    context.faults.inject(parseFault(fieldsOf(request)))
    return sendJson(reply, 200, { faults: context.faults.list() })
  })

  app.delete(`${prefix}/faults`, async (_request, reply) => {
    context.faults.clear()
    return sendJson(reply, 200, { faults: [] })
  })

  app.get(`${prefix}/received`, async (_request, reply) => sendJson(reply, 200, { requests: context.received.list() }))

  app.delete(`${prefix}/received`, async (_request, reply) => {
    context.received.clear()
    return sendJson(reply, 200, { requests: [] })
  })

  app.get(`${prefix}/config`, async (_request, reply) => sendJson(reply, 200, currentRuntimeConfig(context.settings)))

  app.post(`${prefix}/config`, async (request, reply) => sendJson(reply, 200, applyRuntimeConfig(context, fieldsOf(request))))

  app.get(`${prefix}/users`, async (_request, reply) => sendJson(reply, 200, {
    users: context.settings.users.map((user) => ({
      user_id: user.userId, name: user.name, full_name: user.fullName, email: user.email, scopes: user.scopes, private_token: user.privateToken
    }))
  }))

  app.get(`${prefix}/stats`, async (_request, reply) => {
    const memory = process.memoryUsage()
    return sendJson(reply, 200, { rss: memory.rss, heap_used: memory.heapUsed, external: memory.external, array_buffers: memory.arrayBuffers })
  })
}
