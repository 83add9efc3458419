import { flood, type FloodKind } from './flooder.js'

// The hostile client in a process of its own: building and masking its messages must not slow
// the bench process, which times the other sessions. Prints its stats as one JSON line.
const [url, kind, ms] = process.argv.slice(2) as [string, FloodKind, string]
const stats = await flood(url, '/trivial', kind, new Promise((resolve) => setTimeout(resolve, Number(ms))))
process.stdout.write(JSON.stringify(stats) + '\n')
process.exit(0)
