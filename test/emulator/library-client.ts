// Calls to the emulator's library API for the library tests: any method, a bearer or private
// token, a JSON or url-encoded body, and the answer with its raw text (304s have none).
import { request } from 'undici'
import type { RunningEmulator } from '../../src/emulator/index.js'
import { signIn } from '../helpers/emulator.js'

export interface LibraryAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  body: any
}

export interface LibraryCall {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  token?: string
  json?: unknown
  form?: Record<string, string | string[]>
  headers?: Record<string, string>
}

export async function call (emulator: RunningEmulator, path: string, options: LibraryCall = {}): Promise<LibraryAnswer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  let body: string | undefined
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.json)
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    const form = new URLSearchParams()
    for (const [name, value] of Object.entries(options.form)) for (const item of [value].flat()) form.append(name, item)
    body = form.toString()
  }
  const url = path.startsWith('http') ? path : `${emulator.baseUrl}/api/${path}`
  const answer = await request(url, { method: options.method ?? 'GET', headers, body })
  const text = await answer.body.text()
  let parsed: unknown = text
  try { parsed = JSON.parse(text) } catch {}
  return { status: answer.statusCode, headers: answer.headers, text, body: parsed }
}

/** Access tokens: alice with every scope, alice with basic only, bob (basic user.info). */
export async function libraryTokens (emulator: RunningEmulator): Promise<{ alice: string, aliceBasic: string, bob: string }> {
  const [alice, aliceBasic, bob] = await Promise.all([
    signIn(emulator, { user: 'alice', scope: 'basic user.info manage upload share' }),
    signIn(emulator, { user: 'alice', scope: 'basic' }),
    signIn(emulator, { user: 'bob', scope: 'basic user.info manage upload share' })
  ])
  return { alice: alice.access_token, aliceBasic: aliceBasic.access_token, bob: bob.access_token }
}

export const errorShape = { error: String, error_description: String, user_message: String }
