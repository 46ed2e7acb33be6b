import { describe, expect, it } from 'vitest'
import { colorBy } from './projection'
import { buildProjectorOption, pointIndexOf } from './projectorOption'

type S = { id: string; type: string; data: number[][] }
const labels = { points: 'points', matches: 'matches', neighbours: 'neighbours' }

function build(dims: 2 | 3, coloring = colorBy([['a'], ['b'], ['a']], 0)) {
  const coords = Float64Array.from({ length: 3 * dims }, (_, i) => i)
  return buildProjectorOption({
    coords,
    points: [0, 1, 2],
    coloring,
    matches: new Set([1]),
    selected: 2,
    neighbours: new Set([0, 1]),
    tooltip: (i) => `#${i}`,
    labels,
    dims,
  })
}

describe('buildProjectorOption', () => {
  it('draws 2-D points as [x, y, index] on a cartesian grid', () => {
    const { option } = build(2)
    const series = option.series as S[]
    expect(series.map((s) => s.type)).toEqual(['scatter', 'scatter', 'scatter', 'scatter', 'scatter'])
    expect(series[0].data).toEqual([[0, 1, 0], [4, 5, 2]])
    expect(option.grid3D).toBeUndefined()
    expect(option.dataZoom).toBeDefined()
  })

  it('draws 3-D points as [x, y, z, index] in a grid3D, with the rings and the selected point', () => {
    const { option, series: info } = build(3)
    const series = option.series as S[]
    expect(series.map((s) => [s.id, s.type])).toEqual([
      ['cat:0', 'scatter3D'],
      ['cat:1', 'scatter3D'],
      ['matches', 'scatter3D'],
      ['neighbours', 'scatter3D'],
      ['selected', 'scatter3D'],
    ])
    expect(series[0].data).toEqual([[0, 1, 2, 0], [6, 7, 8, 2]])
    expect(series[1].data).toEqual([[3, 4, 5, 1]])
    expect(series[2].data).toEqual([[3, 4, 5, 1]])
    expect(series[3].data).toEqual([[0, 1, 2, 0], [3, 4, 5, 1]])
    expect(series[4].data).toEqual([[6, 7, 8, 2]])
    expect(info.map((s) => [s.name, s.points])).toEqual([['a', 2], ['b', 1]])
    expect(option.grid3D).toBeDefined()
    expect(option.xAxis3D && option.yAxis3D && option.zAxis3D).toBeTruthy()
    expect(option.dataZoom).toBeUndefined()
    expect(option.grid).toBeUndefined()
    const tip = (option.tooltip as { formatter: (p: unknown) => string }).formatter
    expect(tip({ data: [6, 7, 8, 2] })).toBe('#2')
  })

  it('puts a number colouring after the index (the visual map reads that dimension)', () => {
    const { option } = build(3, colorBy([['1'], ['2'], ['3']], 0))
    expect((option.series as S[])[0].data[0]).toEqual([0, 1, 2, 0, 1])
    expect((option.visualMap as { dimension: number }).dimension).toBe(4)
    expect((build(2, colorBy([['1'], ['2'], ['3']], 0)).option.visualMap as { dimension: number }).dimension).toBe(3)
  })
})

describe('pointIndexOf', () => {
  it('reads the index after the coordinates', () => {
    expect(pointIndexOf([1, 2, 7], 2)).toBe(7)
    expect(pointIndexOf([1, 2, 3, 7], 3)).toBe(7)
    expect(pointIndexOf([1, 2, 3], 3)).toBeNull()
    expect(pointIndexOf(undefined, 2)).toBeNull()
  })
})
