import { runProcess } from '../src/process/run-process.js'

// The probe child: loads the app once per start, reports what svc needs to know of it (settings,
// pages, components) to whoever forked it, and exits. A process, so that everything the load
// allocated goes back to the system with it; the supervisor binds only after it answered.
await runProcess(
  // What the app module started at import (a timer, a child process) goes with the probe.
  { title: 'svc probe', beforeExit: async () => (await import('../src/process/kill-tree.js')).endOwnTree() },
  async (proc) => {
    // Its parent gone (or a signal), nobody waits for the report.
    proc.serve({ close: () => proc.exit(1), destroy: () => proc.exit(1) })
    const { probe, reportChannel } = await import('./probe.js')
    const channel = reportChannel()
    const report = await probe(process.argv[2] ?? '', (early) => channel.send(early))
    channel.send(report, undefined, { sent: () => void proc.exit(report.type === 'probed' ? 0 : 1) })
  },
)
