// Where npm test runs, the repository's modules are JavaScript beside their TypeScript sources
// (the compiled tree of test/setup/compiled-tree.ts); `npx tap test/some.test.ts` runs the sources
// through tsx. What a test names by file follows whichever this process loaded.

/** `.js` in npm test's compiled tree, `.ts` through tsx. */
export const loadedExtension = import.meta.url.endsWith('.ts') ? '.ts' : '.js'

/** node's arguments to run a module of the repository by its path without extension (`src/server`). */
export function nodeArgsFor (module: string): string[] {
  return loadedExtension === '.js' ? [`${module}.js`] : ['--import', 'tsx', `${module}.ts`]
}
