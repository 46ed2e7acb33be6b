import { describe, expect, it } from 'vitest'
import type { TrainJob } from '@/api/client'
import { displayRows, missingPages, visibleRange, withPage } from './runRows'

function job(id: string, group?: { id: string; rank: number; size: number }): TrainJob {
  return {
    train_id: id,
    relative_path: id,
    create_time: '',
    update_time: '',
    cache_status: 'NOT_IN_CACHE',
    is_integrity: true,
    summary_files: 1,
    lineage_files: 0,
    graph_files: 0,
    profiler_dir: null,
    profiler_type: '',
    dump_dir: null,
    plugins: {} as TrainJob['plugins'],
    ...(group ? { group } : {}),
  }
}

describe('displayRows', () => {
  const g = { id: './job', rank: 1, size: 2 }
  const entries = [job('./a'), job('./job/rank_1', g), undefined]

  it('has one row per entry, loaded or not', () => {
    const rows = displayRows(3, entries, new Map())
    expect(rows.map((r) => [r.kind, r.index])).toEqual([
      ['entry', 0],
      ['entry', 1],
      ['entry', 2],
    ])
    expect(rows[2].kind === 'entry' && rows[2].job).toBeUndefined()
  })

  it('puts the ranks of an expanded group after its entry, or a loading row', () => {
    const loading = displayRows(3, entries, new Map([['./job', null]]))
    expect(loading.map((r) => r.kind)).toEqual(['entry', 'entry', 'members-loading', 'entry'])
    const members = [job('./job/rank_0', { ...g, rank: 0 }), job('./job/rank_1', g)]
    const open = displayRows(3, entries, new Map([['./job', members]]))
    expect(open.map((r) => (r.kind === 'member' ? r.job.train_id : r.kind))).toEqual([
      'entry',
      'entry',
      './job/rank_0',
      './job/rank_1',
      'entry',
    ])
    expect(open[3].index).toBe(1)
  })
})

describe('paging', () => {
  it('asks only for the pages of visible rows not loaded yet', () => {
    const rows = displayRows(350, [], new Map()).slice(95, 210)
    expect(missingPages(rows, new Set([1]), 100)).toEqual([0, 2])
    expect(missingPages(rows, new Set([0, 1, 2]), 100)).toEqual([])
  })

  it('writes a page in place without touching the old array', () => {
    const before: (TrainJob | undefined)[] = []
    const after = withPage(before, 250, 2, [job('./x'), job('./y')], 100)
    expect(after.length).toBe(250)
    expect(after[200]?.train_id).toBe('./x')
    expect(after[201]?.train_id).toBe('./y')
    expect(before.length).toBe(0)
    expect(withPage(after, 201, 2, [job('./x'), job('./y')], 100).length).toBe(201)
  })

  it('computes the visible window with overscan, clamped', () => {
    expect(visibleRange(0, 440, 44, 10000, 5)).toEqual([0, 15])
    expect(visibleRange(44 * 5000, 440, 44, 10000, 5)).toEqual([4995, 5015])
    expect(visibleRange(44 * 9999, 440, 44, 10000, 5)).toEqual([9994, 10000])
    expect(visibleRange(0, 440, 44, 0, 5)).toEqual([0, 0])
  })
})
