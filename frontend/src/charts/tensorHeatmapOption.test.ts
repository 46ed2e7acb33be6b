import { describe, expect, it } from 'vitest'
import { heatmapCells } from '@/lib/tensorSlice'
import { NONFINITE_KINDS, nonFiniteByKind, tensorHeatmapOption } from './tensorHeatmapOption'

const labels = { row: 'Row', col: 'Column', value: 'Value' }

describe('tensorHeatmapOption', () => {
  it('draws NaN, +Inf and −Inf each in its own colour with a counted legend entry', () => {
    const h = heatmapCells([
      [1, 'NAN', 'INF'],
      ['-INF', 'NAN', -2],
    ])
    expect(nonFiniteByKind(h.nonFinite).map((c) => c.length)).toEqual([2, 1, 1])
    const option = tensorHeatmapOption(h, labels) as { series: { name: string; data: unknown[]; itemStyle?: { color: string } }[]; legend: { data: string[]; formatter: (n: string) => string } }
    const byName = Object.fromEntries(option.series.map((s) => [s.name, s]))
    expect(byName['NaN'].data).toHaveLength(2)
    expect(byName['+Inf'].data).toEqual([[2, 0, 'INF']])
    expect(byName['−Inf'].data).toEqual([[0, 1, '-INF']])
    const colours = NONFINITE_KINDS.map((k) => byName[k.name].itemStyle?.color)
    expect(new Set(colours).size).toBe(3)
    expect(option.legend.data).toEqual(['NaN', '+Inf', '−Inf'])
    expect(option.legend.formatter('NaN')).toBe('NaN (2)')
  })

  it('has no legend when every cell is finite', () => {
    const option = tensorHeatmapOption(heatmapCells([[1, 2]]), labels) as { legend: { show: boolean; data: string[] } }
    expect(option.legend.show).toBe(false)
    expect(option.legend.data).toEqual([])
  })
})
