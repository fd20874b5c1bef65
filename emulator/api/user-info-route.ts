// GET /api/user/info: the caller's profile and entitlements. Any valid token may read it (the
// BFF reads entitlements right after sign-in, whatever was granted).
import type { FastifyInstance } from 'fastify'
import type { EmulatorContext } from '../context.js'
import { faultHook } from '../faults.js'
import { sendJson } from '../http/replies.js'
import { authenticate } from './authenticate.js'

const userInfoSchema = {
  type: 'object',
  required: ['user_id', 'username', 'name', 'email', 'scopes'],
  properties: {
    user_id: { type: 'integer' },
    username: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } }
  }
} as const

export function userInfoRoute (app: FastifyInstance, context: EmulatorContext): void {
  app.get('/api/user/info', { onRequest: faultHook(context.faults, 'user_info'), schema: { response: { 200: userInfoSchema } } }, async (request, reply) => {
    const { user } = authenticate(context, request)
    context.counters.userInfo += 1
    return sendJson(reply, 200, {
      user_id: user.userId,
      username: user.name,
      name: user.fullName,
      email: user.email,
      scopes: [...user.scopes]
    })
  })
}
