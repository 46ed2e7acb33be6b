import { describe, expect, it } from 'vitest'
import type { TrainJob } from '@/api/types'
import { defaultRuns } from './compareDefaults'

function job(id: string, scalars: string[], summaryFiles = 1): TrainJob {
  return {
    train_id: id, relative_path: id, create_time: '', update_time: '', cache_status: 'CACHED', is_integrity: true,
    summary_files: summaryFiles, lineage_files: 0, graph_files: 0, profiler_dir: null, profiler_type: '', dump_dir: null,
    plugins: { scalar: scalars },
  } as TrainJob
}

describe('defaultRuns', () => {
  it('picks the runs sharing the most recorded tag, not the first listed ones (issue 21)', () => {
    // the fixtures' order: the first five runs with scalars share no tag; nine record loss/auto
    const jobs = [
      job('./truncated', ['edge/acc', 'edge/loss']), job('./summary_ops', ['logit_mean', 'loss']),
      job('./record_api', ['train/loss', 'train/lr']), job('./profiler_cpu', ['loss/auto']),
      job('./not_summary', []), job('./l1', ['loss/auto']), job('./l2', ['loss/auto']), job('./l3', ['loss/auto']),
      job('./l4', ['loss/auto']), job('./crc_corrupt', ['edge/acc', 'edge/loss']),
    ]
    expect(defaultRuns(jobs, 5)).toEqual(['./profiler_cpu', './l1', './l2', './l3', './l4'])
  })
  it('adds the runs sharing most tags with the pick when too few have the seed tag, never one sharing none', () => {
    const jobs = [job('./a', ['x', 'y']), job('./b', ['x', 'y', 'z']), job('./c', ['z']), job('./d', ['q']), job('./e', ['y'])]
    // y: a, b, e (3 runs); then c shares z with b; d shares nothing
    expect(defaultRuns(jobs, 5)).toEqual(['./a', './b', './c', './e'])
    expect(defaultRuns(jobs, 2)).toEqual(['./a', './b'])
  })
  it('skips runs without scalars and returns none when none have any', () => {
    expect(defaultRuns([job('./a', ['s']), job('./x', []), job('./y', ['s'], 0)], 5)).toEqual(['./a'])
    expect(defaultRuns([job('./x', [])], 5)).toEqual([])
  })
})
