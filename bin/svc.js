#!/usr/bin/env node
import { keepJitLean } from '../dist/src/process/lean-jit.js'
import { enableCompileCache } from '../dist/src/internal/compile-cache.js'
// The CLI, and the supervisor `svc run` / `svc dev` become, run without V8's optimising
// compilers (src/process/lean-jit.ts); first, so the compile cache is keyed to these flags.
keepJitLean()
// Before the CLI and supervisor modules are compiled, so later starts load them from the cache.
enableCompileCache()
await import('../dist/src/cli/main.js')
