// Default run selection of the comparison page: the first `max` listed runs that have scalar tags
// (train-jobs lists a cached run's tags in `plugins`). Runs without scalars, or not loaded, are not picked.
import type { TrainJob } from '@/api/types'

export function defaultRuns(jobs: readonly TrainJob[], max: number): string[] {
  return jobs
    .filter((j) => j.summary_files > 0 && (j.plugins?.scalar?.length ?? 0) > 0)
    .slice(0, max)
    .map((j) => j.train_id)
}
