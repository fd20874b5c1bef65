// Test and operator hooks under /__emulator/ on the API origin. They exist only in the emulator
// (the real service has nothing like them) and need no authentication: they are how tests look
// inside the service and make it misbehave. Never expose an emulator beyond a test network.
import { copyCounters, zeroCounters } from '../counters.js'
import type { EmulatorContext } from '../context.js'
import { findUser } from '../context.js'
import { parseFault } from '../faults.js'
import { badRequest } from '../http/emulator-error.js'
import { hasBody, readBodyFields } from '../http/read-body.js'
import { sendJson } from '../http/responses.js'
import type { Route, RouteContext } from '../http/router.js'
import { applyRuntimeConfig, currentRuntimeConfig } from './runtime-config.js'

const prefix = '/__emulator'

export function emulatorHookRoutes (context: EmulatorContext): Route[] {
  const json = async (route: RouteContext): Promise<Record<string, unknown>> => hasBody(route.req) ? await readBodyFields(route.req) : {}

  return [
    { method: 'GET', path: `${prefix}/counters`, handler: ({ res }) => { sendJson(res, 200, copyCounters(context.counters)) } },
    {
      method: 'POST',
      path: `${prefix}/reset-counters`,
      handler: ({ res }) => {
        Object.assign(context.counters, zeroCounters())
        sendJson(res, 200, copyCounters(context.counters))
      }
    },
    {
      method: 'GET',
      path: `${prefix}/files`,
      handler: ({ res }) => {
        sendJson(res, 200, {
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
            path: file.path
          }))
        })
      }
    },
    {
      method: 'GET',
      path: `${prefix}/tokens`,
      handler: ({ res }) => {
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
        sendJson(res, 200, {
          access_tokens: view('access'),
          refresh_tokens: view('refresh'),
          private_tokens: context.settings.users.map((user) => ({ user: user.name, token: user.privateToken }))
        })
      }
    },
    {
      method: 'POST',
      path: `${prefix}/revoke`,
      handler: async (route) => {
        const { user } = await json(route)
        if (user !== undefined && (typeof user !== 'string' || findUser(context, user) === undefined)) throw badRequest('user must be the name of a fixture user.')
        const families = context.tokens.revokeUser(user)
        sendJson(route.res, 200, { revoked_grants: families })
      }
    },
    { method: 'GET', path: `${prefix}/faults`, handler: ({ res }) => { sendJson(res, 200, { faults: context.faults.list() }) } },
    {
      method: 'POST',
      path: `${prefix}/faults`,
      handler: async (route) => {
        const spec = parseFault(await json(route))
        context.faults.inject(spec)
        sendJson(route.res, 200, { faults: context.faults.list() })
      }
    },
    {
      method: 'DELETE',
      path: `${prefix}/faults`,
      handler: ({ res }) => {
        context.faults.clear()
        sendJson(res, 200, { faults: [] })
      }
    },
    { method: 'GET', path: `${prefix}/config`, handler: ({ res }) => { sendJson(res, 200, currentRuntimeConfig(context.settings)) } },
    {
      method: 'POST',
      path: `${prefix}/config`,
      handler: async (route) => { sendJson(route.res, 200, applyRuntimeConfig(context.settings, await json(route))) }
    },
    {
      method: 'GET',
      path: `${prefix}/users`,
      handler: ({ res }) => {
        sendJson(res, 200, {
          users: context.settings.users.map((user) => ({
            user_id: user.userId, name: user.name, full_name: user.fullName, email: user.email, scopes: user.scopes, private_token: user.privateToken
          }))
        })
      }
    },
    {
      method: 'GET',
      path: `${prefix}/stats`,
      handler: ({ res }) => {
        const memory = process.memoryUsage()
        sendJson(res, 200, { rss: memory.rss, heap_used: memory.heapUsed, external: memory.external, array_buffers: memory.arrayBuffers })
      }
    }
  ]
}
