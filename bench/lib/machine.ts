import { readFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'

/** What the figures were measured on, printed at the top of every bench. */
export interface Machine {
  cpu: string
  cores: number
  node: string
  date: string
}

export function machine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
    cores: availableParallelism(),
    node: process.version,
    date: new Date().toISOString().slice(0, 10),
  }
}

export function machineLine(m: Machine = machine()): string {
  return `machine: ${m.cpu}, ${m.cores} cores, node ${m.node}, ${m.date}`
}

function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  const total = fields.reduce((a, b) => a + b, 0)
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0)
  return { busy: total - idle, total }
}

/** Share of all cores busy over `ms` (0..1), to warn when something else competes for the CPU. */
export async function cpuBusyShare(ms = 1_000): Promise<number> {
  const a = cpuTimes()
  await delay(ms)
  const b = cpuTimes()
  return b.total === a.total ? 0 : (b.busy - a.busy) / (b.total - a.total)
}

/** A warning line when the machine is not idle before the bench starts, else null. */
export async function busyWarning(): Promise<string | null> {
  const busy = await cpuBusyShare()
  if (busy < 0.15) return null
  const load = loadavg().map((l) => l.toFixed(2)).join(' ')
  return `warning: the machine is ${(busy * 100).toFixed(0)}% busy before the bench (load ${load}); other processes compete for the CPU and the figures will be low and noisy`
}

/** A bench's first lines: the machine, the load average, and a warning when the CPU is busy already. */
export async function printMachine(): Promise<void> {
  console.log(machineLine())
  console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  const warning = await busyWarning()
  if (warning) console.log(warning)
}
