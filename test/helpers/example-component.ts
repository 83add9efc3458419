import { mkdirSync, rmSync, statSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO } from './svc-process.js'

/** The example star rating (examples/components/star-rating) and its Vite config. */
export const STAR_RATING_DIR = join(REPO, 'examples/components/star-rating')
export const STAR_RATING_CONFIG = join(STAR_RATING_DIR, 'vite.config.ts')

/** Its sources and the svc/component library it bundles (src/component). */
function newestSource(): number {
  const library = join(REPO, 'src/component')
  const files = [
    ...['index.html', 'vite.config.ts'].map((f) => join(STAR_RATING_DIR, f)),
    ...readdirSync(join(STAR_RATING_DIR, 'src')).map((f) => join(STAR_RATING_DIR, 'src', f)),
    ...readdirSync(library).map((f) => join(library, f)),
  ]
  return Math.max(...files.map((f) => statSync(f).mtimeMs))
}

function builtAt(): number | null {
  try {
    return statSync(join(STAR_RATING_DIR, 'dist/index.html')).mtimeMs
  } catch {
    return null
  }
}

/**
 * Builds the example with its npm script's command (`vite build`) unless dist/ is newer than its
 * sources. Test files run in parallel workers and several use it: a lock directory (mkdir is
 * atomic) lets one build while the others wait, so none reads dist/ while Vite empties it.
 */
export async function buildStarRating(deadlineMs = 120_000): Promise<void> {
  const lock = join(STAR_RATING_DIR, '.build-lock')
  const until = Date.now() + deadlineMs
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      if (Date.now() > until) throw new Error(`buildStarRating: ${lock} is still held after ${deadlineMs} ms (remove it if no test is running)`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  try {
    const built = builtAt()
    if (built === null || built < newestSource()) await execa('npx', ['vite', 'build', '--config', STAR_RATING_CONFIG], { cwd: REPO })
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
