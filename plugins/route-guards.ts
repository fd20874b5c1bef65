// Guards declared on the route (`config: { limit, scopes, operators, ... }`) are attached to that
// route alone as it is registered (Fastify's onRoute), as @fastify/rate-limit attaches its own:
// a route that declares none runs none of them, and a guard never looks its route up per request.
// A guard runs before the route's own hooks of the same kind, and guards run in the order their
// plugins were registered (src/app.ts).
import type { RouteOptions, onRequestHookHandler, preHandlerHookHandler } from 'fastify'

type HookOf<K> = K extends 'onRequest' ? onRequestHookHandler : preHandlerHookHandler

/** Puts `hook` first among the route's own hooks of kind `kind`, after the guards attached before it. */
export function guardRoute<K extends 'onRequest' | 'preHandler'> (route: RouteOptions, kind: K, hook: HookOf<K>): void {
  const own = route[kind]
  const existing = own === undefined ? [] : Array.isArray(own) ? own : [own]
  const guards = guardCount.get(route) ?? { onRequest: 0, preHandler: 0 }
  route[kind] = [...existing.slice(0, guards[kind]), hook, ...existing.slice(guards[kind])] as RouteOptions[K]
  guards[kind]++
  guardCount.set(route, guards)
}

const guardCount = new WeakMap<RouteOptions, { onRequest: number, preHandler: number }>()
