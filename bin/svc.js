#!/usr/bin/env node
import { enableCompileCache } from '../dist/src/internal/compile-cache.js'
// Before the CLI and supervisor modules are compiled, so later starts load them from the cache.
enableCompileCache()
await import('../dist/src/cli/main.js')
