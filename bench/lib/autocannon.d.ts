// The slice of autocannon's programmatic API the benches use (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string
    connections: number
    duration: number
    pipelining?: number
    timeout?: number
    headers?: Record<string, string>
  }
  interface Histogram {
    p50: number
    p99: number
  }
  interface Result {
    requests: { total: number; average: number }
    latency: Histogram
    duration: number
    errors: number
    timeouts: number
    non2xx: number
  }
  function autocannon(opts: Options): Promise<Result>
  export default autocannon
}
