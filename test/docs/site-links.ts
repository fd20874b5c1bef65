// The link checker of the built docs site (test/docs/site.test.ts): every <a href> of every page
// that stays on the site must name a built page or file, and its #fragment an element id on that
// page. VitePress's own check at build time sees links between markdown pages but not their
// anchors, nor the links its theme writes (navigation, sidebar, previous and next).
import { readdir, readFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'

export interface BuiltSite {
  /** Each page's HTML by the path it is served at (cleanUrls: `/guide/deploy`, `/` for index.html). */
  pages: Map<string, string>
  /** Every other file, by its path on the site (`/openapi.json`). */
  files: Set<string>
}

const SITE = 'http://site.invalid'

export async function readSite (dir: string): Promise<BuiltSite> {
  const site: BuiltSite = { pages: new Map(), files: new Set() }
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = `/${relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/')}`
    if (path.endsWith('.html')) site.pages.set(pagePath(path), await readFile(join(entry.parentPath, entry.name), 'utf8'))
    else site.files.add(path)
  }
  return site
}

/** `/guide/deploy.html` is served at `/guide/deploy`, `/index.html` at `/`. */
function pagePath (file: string): string {
  return file.replace(/(^|\/)index\.html$/, '$1').replace(/\.html$/, '')
}

const decode = (text: string): string => text.replace(/&(amp|quot|#39|lt|gt);/g, (_, name: string) => ({ amp: '&', quot: '"', '#39': "'", lt: '<', gt: '>' })[name] ?? '')

export function idsOf (html: string): Set<string> {
  return new Set([...html.matchAll(/\sid=(["'])(.*?)\1/g)].map(([, , id = '']) => decode(id)))
}

export function hrefsOf (html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*?\shref=(["'])(.*?)\1/g)].map(([, , href = '']) => decode(href))
}

/** Every link of the site that leads nowhere, as "page: href (why)". */
export function brokenLinks (site: BuiltSite): string[] {
  const ids = new Map([...site.pages].map(([path, html]) => [path, idsOf(html)]))
  const broken: string[] = []
  for (const [page, html] of site.pages) {
    for (const href of hrefsOf(html)) {
      if (/^(mailto|javascript):/i.test(href)) continue
      const url = new URL(href, `${SITE}${page}`)
      // Another site (GitHub, the RFCs...): not this checker's to judge.
      if (url.origin !== SITE) continue
      const path = decodeURI(url.pathname)
      const target = site.pages.has(path) ? path : site.pages.has(pagePath(path)) ? pagePath(path) : undefined
      if (target === undefined) {
        if (!site.files.has(path)) broken.push(`${page}: ${href} (no such page or file)`)
        continue
      }
      const fragment = decodeURIComponent(url.hash.slice(1))
      if (fragment !== '' && ids.get(target)?.has(fragment) !== true) broken.push(`${page}: ${href} (no element #${fragment} on ${target})`)
    }
  }
  return broken
}
