import { describe, expect, it } from 'vitest'
import { diffRows, heatmapCells, isIntegerType, rowsToCsv, sliceRows } from './tensorSlice'
import { dimsProblem } from './tensorDims'

describe('tensor slices', () => {
  it('turns 0-, 1- and 2-D slices into rows', () => {
    expect(sliceRows(3)).toEqual([[3]])
    expect(sliceRows([1, 2])).toEqual([[1, 2]])
    expect(sliceRows([[1, 2], [3, 'NAN']])).toEqual([[1, 2], [3, 'NAN']])
    expect(sliceRows(undefined)).toEqual([])
  })
  it('compares two steps cell by cell', () => {
    expect(diffRows([[5, 1], [2, 'INF']], [[2, 1], [4, 'INF']])).toEqual([[3, 0], [-2, 'NAN']])
    expect(diffRows([[1, 2]], [[1, 2, 3]])).toBeNull()
  })
  it('writes CSV with row and column indices, full precision', () => {
    expect(rowsToCsv([[0.123456789, -1], ['NAN', 2]])).toBe(',0,1\n0,0.123456789,-1\n1,NAN,2\n')
  })
})

describe('dims problems', () => {
  it('names the dimension and its size for an out-of-range index', () => {
    expect(dimsProblem(['0', '7', ':'], [3, 4, 5])).toEqual({ kind: 'range', dim: 1, size: 4, value: '7' })
    expect(dimsProblem(['-4', ':', ':'], [3, 4, 5])).toEqual({ kind: 'range', dim: 0, size: 3, value: '-4' })
    expect(dimsProblem(['0', 'a', ':'], [3, 4, 5])).toEqual({ kind: 'syntax', dim: 1, value: 'a' })
    expect(dimsProblem(['0', ':', ':'], [3, 4, 5])).toBeNull()
  })
  it('splits a slice into finite heat-map cells and NaN/Inf cells', () => {
    const h = heatmapCells([
      [1, -2, 'NAN'],
      [0.5, 'INF'],
    ])
    expect(h.finite).toEqual([
      [0, 0, 1],
      [1, 0, -2],
      [0, 1, 0.5],
    ])
    expect(h.nonFinite).toEqual([
      [2, 0, 'NAN'],
      [1, 1, 'INF'],
    ])
    expect([h.rows, h.cols, h.min, h.max]).toEqual([2, 3, -2, 1])
    expect(heatmapCells([['NAN']])).toMatchObject({ min: 0, max: 0, finite: [] })
  })
})

describe('isIntegerType', () => {
  it('knows the integer and boolean dtypes', () => {
    for (const dt of ['DT_INT8', 'DT_INT32', 'DT_INT64', 'DT_UINT8', 'DT_UINT64', 'DT_BOOL']) expect(isIntegerType(dt), dt).toBe(true)
    for (const dt of ['DT_FLOAT32', 'DT_FLOAT16', 'DT_FLOAT64', 'DT_BFLOAT16', '', undefined]) expect(isIntegerType(dt), String(dt)).toBe(false)
  })
})
