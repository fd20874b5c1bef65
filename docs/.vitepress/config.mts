// The docs site (`npm run docs:dev`, `npm run docs:build`). Dead links fail the build, as
// VitePress does by default. Links to the repository's files are written as code, not links: the
// site has no page for them.
import { defineConfig } from 'vitepress'

const guides = [
  { text: 'Quick start', link: '/guide/quick-start' },
  { text: 'Integrate a front-end', link: '/guide/integrate' },
  { text: 'The browser module', link: '/guide/browser-module' },
  { text: 'Your own server', link: '/guide/own-server' },
  { text: 'Deploy', link: '/guide/deploy' },
  { text: 'How configuration works', link: '/guide/configure' },
  { text: 'Operate', link: '/guide/operate' },
  { text: 'Security', link: '/guide/security' },
  { text: 'Upgrade', link: '/guide/upgrade' },
  { text: 'The emulator', link: '/guide/emulator' },
  { text: 'Develop', link: '/guide/develop' }
]

const references = [
  { text: 'The HTTP API', link: '/reference/http-api' },
  { text: 'API reference', link: '/reference/api' },
  { text: 'Configuration reference', link: '/reference/configuration' },
  { text: 'The audit events', link: '/reference/audit-events' }
]

export default defineConfig({
  title: 'media-bff',
  description: 'An OAuth 2 backend-for-frontend for websites whose staff upload media straight from the browser to a hosted media service',
  cleanUrls: true,
  // No icon of its own: an empty one, so that browsers do not ask for /favicon.ico.
  head: [['link', { rel: 'icon', href: 'data:,' }]],
  // docs/public/ holds files served as they are (the API reference's), not pages.
  srcExclude: ['public/**'],
  // With the project's other build output, and Vite's cache where Vite keeps it: git and the
  // linter already leave both alone.
  outDir: '../dist/docs',
  cacheDir: '../node_modules/.vite/vitepress',
  themeConfig: {
    nav: [
      { text: 'Guides', items: guides },
      { text: 'Reference', items: references }
    ],
    sidebar: [
      { text: 'Guides', items: guides },
      { text: 'Reference', items: references }
    ],
    outline: [2, 3],
    search: { provider: 'local' }
  }
})
