/**
 * "Did you mean": the known name a mistyped one most likely meant. A candidate within a small
 * edit distance (a transposed pair counts as one edit: `wrokers` → `workers`) wins; else the one
 * candidate with the typed name as one of its words (`port` → `gateway_port`). Null when
 * nothing is close, or when the words match several names equally.
 */
export function closestName(input: string, candidates: readonly string[]): string | null {
  const typed = input.toLowerCase()
  const limit = Math.max(1, Math.floor(typed.length / 3))
  let best: string | null = null
  let bestDistance = limit + 1
  for (const c of candidates) {
    const d = editDistance(typed, c.toLowerCase())
    if (d < bestDistance) {
      best = c
      bestDistance = d
    }
  }
  if (best !== null) return best
  const words = (name: string): string[] => name.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)
  const typedWords = words(typed)
  const byWord = candidates.filter((c) => typedWords.length > 0 && typedWords.every((w) => words(c).includes(w)))
  return byWord.length === 1 ? byWord[0]! : null
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = d
    }
  }
  return rows[a.length]![b.length]!
}
