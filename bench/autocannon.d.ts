// The part of autocannon's programmatic API the benchmark uses (the package ships no types, and
// @types/autocannon would be a second devDependency for five fields).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    connections?: number
    duration?: number
    amount?: number
    pipelining?: number
    timeout?: number
    /** Milliseconds between samples (and checks for the end of the run). */
    sampleInt?: number
  }

  export interface Result {
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    duration: number
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop: () => void
  }

  /** The client of one connection; the 'response' event passes it first. */
  export interface Client { destroy: () => void }

  function autocannon (options: Options): Instance
  export default autocannon
}
