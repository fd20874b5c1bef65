// This tab's sessionStorage as the browser module reaches it (window.sessionStorage), for unit
// tests that run the module outside a browser: a Map behind the Storage calls the module makes.
export function fakeTabStorage (): Map<string, string> {
  const storage = new Map<string, string>()
  Object.assign(globalThis, {
    window: {
      sessionStorage: {
        getItem: (key: string) => storage.get(key) ?? null,
        setItem: (key: string, value: string) => { storage.set(key, value) },
        removeItem: (key: string) => { storage.delete(key) }
      }
    }
  })
  return storage
}
