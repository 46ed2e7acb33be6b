// Default run selection of the comparison page (no `run` in the URL). Runs are only worth comparing on a tag they
// share: the first `max` listed runs may share none (the fixtures' first five record five different scalars), so
// the pick starts from the scalar tag recorded by the most runs and takes those runs in listing order (most
// recently updated first); when fewer than `max` have it, it adds the runs sharing the most tags with the pick so
// far, never one that shares none. Runs without scalar tags, or not loaded (train-jobs lists a cached run's tags
// in `plugins`), are not picked.
import type { TrainJob } from '@/api/types'

export function defaultRuns(jobs: readonly TrainJob[], max: number): string[] {
  const runs = jobs
    .filter((j) => j.summary_files > 0 && (j.plugins?.scalar?.length ?? 0) > 0)
    .map((j) => ({ id: j.train_id, tags: new Set(j.plugins?.scalar ?? []) }))
  if (!runs.length || max <= 0) return []
  const counts = new Map<string, number>()
  for (const r of runs) for (const tag of r.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
  // the most shared tag; ties go to the one the first-listed run has (then by name, for a stable pick)
  let seed = ''
  let best = -1
  for (const r of runs) {
    for (const tag of [...r.tags].sort()) {
      const n = counts.get(tag) ?? 0
      if (n > best) [seed, best] = [tag, n]
    }
  }
  const picked = runs.filter((r) => r.tags.has(seed)).slice(0, max)
  const union = new Set(picked.flatMap((r) => [...r.tags]))
  const rest = runs
    .filter((r) => !picked.includes(r))
    .map((r, order) => ({ r, order, shared: [...r.tags].filter((x) => union.has(x)).length }))
    .filter((x) => x.shared > 0)
    .sort((a, b) => b.shared - a.shared || a.order - b.order)
  for (const { r } of rest) {
    if (picked.length >= max) break
    picked.push(r)
  }
  const chosen = new Set(picked.map((r) => r.id))
  return runs.filter((r) => chosen.has(r.id)).map((r) => r.id) // in listing order
}
