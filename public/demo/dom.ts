// Tiny DOM helpers for the demo page: look elements up by id with their real type (so a renamed
// id fails loudly at start instead of silently doing nothing), and build elements from text
// only, never from HTML strings, so nothing a server sends can inject markup.

export function byId<T extends HTMLElement> (id: string, type: { new (): T, prototype: T }): T {
  const found = document.getElementById(id)
  if (!(found instanceof type)) throw new Error(`The demo page lacks #${id} (${type.name}).`)
  return found
}

export interface ElementSpec {
  className?: string
  text?: string
  attributes?: Record<string, string>
}

export function createElement<K extends keyof HTMLElementTagNameMap> (tag: K, spec: ElementSpec = {}, children: Node[] = []): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  if (spec.className !== undefined) element.className = spec.className
  if (spec.text !== undefined) element.textContent = spec.text
  for (const [name, value] of Object.entries(spec.attributes ?? {})) element.setAttribute(name, value)
  element.append(...children)
  return element
}
