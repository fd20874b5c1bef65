// Guards declared on the route (`config: { limit, scopes, operators }`) are attached to that
// route alone as it is registered (Fastify's onRoute), as @fastify/rate-limit attaches its own:
// a route that declares none runs none of them, and a guard never looks its route up per request.
// A guard runs before the route's own hooks of the same kind, and guards run in the order their
// plugins were registered (src/app.ts).
//
// A declared guard that nothing attached would leave its route open, silently (a plugin left out,
// a limit's name misspelt): the plugin here stops the start instead, naming each such route.
import fp from 'fastify-plugin'
import type { RouteOptions, onRequestHookHandler, preHandlerHookHandler } from 'fastify'

type HookOf<K> = K extends 'onRequest' ? onRequestHookHandler : preHandlerHookHandler

/** The route config keys that declare a guard, each attached by its own plugin. */
export const GUARDS = ['limit', 'scopes', 'operators'] as const
export type GuardName = typeof GUARDS[number]

/** Puts `hook` first among the route's own hooks of kind `kind`, after the guards attached before it. */
export function guardRoute<K extends 'onRequest' | 'preHandler'> (route: RouteOptions, guard: GuardName, kind: K, hook: HookOf<K>): void {
  const own = route[kind]
  const existing = own === undefined ? [] : Array.isArray(own) ? own : [own]
  const guards = guardCount.get(route) ?? { onRequest: 0, preHandler: 0 }
  route[kind] = [...existing.slice(0, guards[kind]), hook, ...existing.slice(guards[kind])] as RouteOptions[K]
  guards[kind]++
  guardCount.set(route, guards)
  handled(route, guard)
}

/** Says the plugin of `guard` looked at the route's declaration and chose to attach nothing (the guard is off by configuration). */
export function leaveOpen (route: RouteOptions, guard: GuardName): void {
  handled(route, guard)
}

const guardCount = new WeakMap<RouteOptions, { onRequest: number, preHandler: number }>()
const handledGuards = new WeakMap<RouteOptions, Set<GuardName>>()

function handled (route: RouteOptions, guard: GuardName): void {
  const seen = handledGuards.get(route) ?? new Set()
  seen.add(guard)
  handledGuards.set(route, seen)
}

/** The guards a route declares that no plugin handled. */
function unguarded (route: RouteOptions): GuardName[] {
  const seen = handledGuards.get(route)
  return GUARDS.filter((guard) => route.config?.[guard] !== undefined && seen?.has(guard) !== true)
}

/** Registered before every plugin with routes or guards (src/app.ts); checks every route once all are registered. */
export default fp(async (app) => {
  const routes: RouteOptions[] = []
  app.addHook('onRoute', (route) => {
    if (GUARDS.some((guard) => route.config?.[guard] !== undefined)) routes.push(route)
  })
  app.addHook('onReady', async () => {
    const open = routes.flatMap((route) => unguarded(route).map((guard) => `${String(route.method)} ${route.url} declares ${guard} ${JSON.stringify(route.config?.[guard])}, which no plugin attached`))
    if (open.length > 0) throw new Error(`media-bff cannot start, a route would be left open:\n${open.map((line) => `  - ${line}`).join('\n')}`)
  })
}, { name: 'route-guards' })
