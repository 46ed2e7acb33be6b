import { describe, expect, it } from 'vitest'
import type { TrainJob } from '@/api/types'
import { defaultRuns } from './compareDefaults'

function job(id: string, scalars: number, summaryFiles = 1): TrainJob {
  return {
    train_id: id, relative_path: id, create_time: '', update_time: '', cache_status: 'CACHED', is_integrity: true,
    summary_files: summaryFiles, lineage_files: 0, graph_files: 0, profiler_dir: null, profiler_type: '', dump_dir: null,
    plugins: { scalar: Array.from({ length: scalars }, (_, i) => `s${i}`) },
  } as TrainJob
}

describe('defaultRuns', () => {
  it('skips runs without scalars (e.g. ./not_summary) and keeps the listing order', () => {
    const jobs = [job('./a', 2), job('./not_summary', 0), job('./b', 1), job('./c', 0, 0), job('./d', 3), job('./e', 1), job('./f', 1), job('./g', 1)]
    expect(defaultRuns(jobs, 5)).toEqual(['./a', './b', './d', './e', './f'])
  })
  it('returns fewer when fewer runs have scalars, none when none do', () => {
    expect(defaultRuns([job('./a', 1), job('./x', 0)], 5)).toEqual(['./a'])
    expect(defaultRuns([job('./x', 0)], 5)).toEqual([])
  })
})
