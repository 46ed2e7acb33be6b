import { describe, expect, it } from 'vitest'
import {
  autoUnit,
  bandwidthByLink,
  clusterBars,
  findingLink,
  heatmap,
  isNpuProcess,
  matrixOps,
  memoryLines,
  relDiff,
  sigDigits,
  sortFindings,
  stepShares,
  topDiffs,
} from './ascendModel'
import type { CommOp, MatrixCell, RankStepTime } from '@/api/profilerApi'
import { heatmapOption } from './ascendCharts'

function op(bandwidth: CommOp['bandwidth']): CommOp {
  return {
    name: 'hcom_allReduce_1', group: 'g', step: 1, elapse_time_ms: 1, transit_time_ms: 1, wait_time_ms: 0,
    synchronization_time_ms: 0, idle_time_ms: 0, wait_time_ratio: 0, synchronization_time_ratio: 0, bandwidth,
  }
}
function rank(rank_id: number, c: number, m: number, f: number): RankStepTime {
  return {
    rank_id, computing_us: c, communication_not_overlapped_us: m, free_us: f, overlapped_us: null, communication_us: null,
    stage_us: null, bubble_us: null, communication_not_overlapped_exclude_receive_us: null, preparing_us: null,
  }
}

describe('ascend view model', () => {
  it('averages the three phases over steps and gives their shares', () => {
    const r = stepShares([
      { computing_us: 10, communication_not_overlapped_us: 20, free_us: 10 },
      { computing_us: 30, communication_not_overlapped_us: 0, free_us: 10 },
    ])
    expect(r.total).toBe(40)
    expect(r.shares.map((s) => s.us)).toEqual([20, 10, 10])
    expect(r.shares.map((s) => s.percent)).toEqual([50, 25, 25])
    expect(stepShares([])).toEqual({ total: 0, shares: [] })
  })

  it('orders cluster bars by rank and outlines the slow phase, not the top segment', () => {
    const bars = clusterBars(
      [rank(3, 1, 2, 3), rank(1, 4, 5, 6)],
      [{ rank_id: 3, phase: 'computing', deviation: 0.2, step_deviation: 0.08 }],
    )
    expect(bars.map((b) => b.rank)).toEqual([1, 3])
    expect(bars[0].total).toBe(15)
    expect(bars[0].slow).toEqual([])
    expect(bars[0].slowPhase).toBeNull()
    expect(bars[1].slow).toEqual([{ phase: 'computing', deviation: 0.2, stepDeviation: 0.08 }])
    expect(bars[1].slowPhase).toBe('computing_us')
  })

  it('orders compare rows by the size of the difference and gives relative differences', () => {
    const row = (op_type: string, diff_us: number) => ({ op_type, diff_us, count: 1, total_us: 1, base_count: 1, base_total_us: 1 })
    expect(topDiffs([row('a', 5), row('b', -9), row('c', 1), row('d', 9)], 3).map((r) => r.op_type)).toEqual(['b', 'd', 'a'])
    expect(relDiff(150, 100)).toBeCloseTo(0.5)
    expect(relDiff(1, 0)).toBeNull()
    expect(relDiff(null, 3)).toBeNull()
  })

  it('sorts findings by severity and links them to their view and first rank', () => {
    const f = (id: string, severity: 'high' | 'medium' | 'low') => ({ id, severity })
    expect(sortFindings([f('b', 'low'), f('z', 'high'), f('a', 'medium'), f('a', 'high')]).map((x) => x.id + x.severity)).toEqual([
      'ahigh', 'zhigh', 'amedium', 'blow',
    ])
    expect(findingLink({ view: 'communication', ranks: [3, 1] })).toEqual({ tab: 'communication', device: '3' })
    expect(findingLink({ view: 'cluster', ranks: [] })).toEqual({ tab: 'cluster', device: null })
  })

  it('sums sizes and times per link type and divides for the bandwidth', () => {
    const links = bandwidthByLink([
      op({ HCCS: { size_mb: 30, time_ms: 2, gbps: 15 }, SDMA: { size_mb: 1, time_ms: 0, gbps: 0 } }),
      op({ HCCS: { size_mb: 10, time_ms: 2, gbps: 5 } }),
    ])
    expect(links.map((l) => l.link)).toEqual(['HCCS', 'SDMA'])
    expect(links[0]).toMatchObject({ size_mb: 40, time_ms: 4, gbps: 10, ops: 2 })
    expect(links[1].gbps).toBeNull()
  })

  it('builds the src->dst heatmap of one op, summing repeated pairs', () => {
    const cells: MatrixCell[] = [
      { op: 'allreduce-top1', src: 0, dst: 1, transport: 'HCCS', size_mb: 4, time_ms: 1, gbps: 4 },
      { op: 'allreduce-top1', src: 0, dst: 1, transport: 'HCCS', size_mb: 4, time_ms: 3, gbps: 1.3 },
      { op: 'allreduce-top1', src: 0, dst: 7, transport: 'HCCS', size_mb: 2, time_ms: 0, gbps: 0 },
      { op: 'allreduce-total', src: 0, dst: 0, transport: 'LOCAL', size_mb: 9, time_ms: 1, gbps: 9 },
    ]
    expect(matrixOps(cells)).toEqual(['allreduce-total', 'allreduce-top1'])
    const h = heatmap(cells, 'allreduce-top1', 'gbps')
    expect(h.ranks).toEqual([0, 1, 7])
    expect([h.srcs, h.dsts]).toEqual([[0], [1, 7]])
    expect(h.cells).toEqual([[0, 0, 2, 'HCCS']]) // 0->1: 8 MB in 4 ms; 0->7 has no transit time: no bandwidth
    expect(heatmap(cells, 'allreduce-top1', 'size_mb').cells).toContainEqual([1, 0, 2, 'HCCS'])
    expect(heatmap(cells, 'nothing', 'gbps')).toEqual({ ranks: [], srcs: [], dsts: [], cells: [], min: 0, max: 0 })
  })

  it('splits memory series into allocated and reserved lines without empty cells', () => {
    const { t0, lines } = memoryLines({
      PTA: [[105, 1, 2, 1], [110, 3, 4, null]],
      APP: [[100, null, 50, null]],
    })
    expect(t0).toBe(100)
    expect(lines.map((l) => `${l.component}:${l.kind}`)).toEqual(['APP:reserved', 'PTA:allocated', 'PTA:reserved'])
    expect(lines[1].points).toEqual([[5, 1], [10, 3]])
  })

  it('keeps the NPU processes of an Ascend trace', () => {
    expect(['Ascend Hardware', 'HCCL', 'Overlap Analysis', 'Python', 'CANN', 'HCCLX'].filter(isNpuProcess)).toEqual([
      'Ascend Hardware', 'HCCL', 'Overlap Analysis',
    ])
  })
})

describe('communication matrix numbers (issue 34)', () => {
  it('picks the unit from the largest value and keeps significant digits', () => {
    expect(autoUnit('GB/s', 0.0842)).toEqual({ unit: 'MB/s', scale: 1e3 })
    expect(autoUnit('GB/s', 12.8)).toEqual({ unit: 'GB/s', scale: 1 })
    expect(autoUnit('MB', 96e-6)).toEqual({ unit: 'B', scale: 1e6 })
    expect(autoUnit('ms', 0.012)).toEqual({ unit: 'µs', scale: 1e3 })
    // the old layout's links (hccl_raw: KB, KB/s)
    expect(autoUnit('KB/s', 2_500_000)).toEqual({ unit: 'GB/s', scale: 1e-6 })
    expect(autoUnit('KB', 512)).toEqual({ unit: 'KB', scale: 1 })
    expect(autoUnit('KB', 0.25)).toEqual({ unit: 'B', scale: 1e3 })
    expect(autoUnit('GB/s', 0)).toEqual({ unit: 'GB/s', scale: 1 })
    expect(sigDigits(0.0571 * 1e3)).toBe('57.1')
    expect(sigDigits(96e-6 * 1e6)).toBe('96')
  })
  it('labels cells and the colour scale in that unit', () => {
    const cells: MatrixCell[] = [
      { op: 'send', src: 0, dst: 1, size_mb: 96e-6, time_ms: 96e-6 / 0.0571, transport: 'HCCS', gbps: null },
      { op: 'send', src: 1, dst: 0, size_mb: 96e-6, time_ms: 96e-6 / 0.0842, transport: 'HCCS', gbps: null },
    ]
    const o = heatmapOption(heatmap(cells, 'send', 'gbps'), 'Bandwidth', 'GB/s') as unknown as {
      visualMap: { formatter: (v: number) => string }
      series: { label: { formatter: (q: { value: number[] }) => string } }[]
    }
    const labels = heatmap(cells, 'send', 'gbps').cells.map((c) => o.series[0].label.formatter({ value: [c[0], c[1], c[2]] }))
    expect(labels.sort()).toEqual(['57.1', '84.2'])
    expect(o.visualMap.formatter(0.0571)).toBe('57.1 MB/s')
    const sizes = heatmapOption(heatmap(cells, 'send', 'size_mb'), 'Size', 'MB') as unknown as typeof o
    expect(sizes.series[0].label.formatter({ value: [0, 0, 96e-6] })).toBe('96')
    expect(sizes.visualMap.formatter(96e-6)).toBe('96 B')
  })
})
