// A tensor slice as shown by the tensor table: as rows (0-D and 1-D become one row), the
// element-wise difference of two slices (MindInsight's "Comparison with another step"), and CSV.
import type { TensorData } from '@/api/types'
import { csvRow } from './csv'

export type Cell = number | string

/** Integer and boolean tensors (MindSpore `DT_INT8` ... `DT_UINT64`, `DT_BOOL`) hold whole numbers: shown
 * without decimals ("20", not "20.00000"). */
export function isIntegerType(dataType: string | undefined): boolean {
  return !!dataType && /^DT_(U?INT\d*|BOOL)$/i.test(dataType)
}

/** The slice as rows of cells; a 0-D value is one row of one cell, a 1-D slice one row. */
export function sliceRows(d: TensorData | undefined): Cell[][] {
  if (d === undefined) return []
  if (!Array.isArray(d)) return [[d as Cell]]
  if (d.length === 0) return []
  if (!Array.isArray(d[0])) return [d as Cell[]]
  return (d as TensorData[][]).map((row) => row.map((c) => (Array.isArray(c) ? NaN : (c as Cell))))
}

/**
 * `current - other`, cell by cell. A cell where either side is NaN/±Inf (sent as "NAN"/"INF"/"-INF")
 * has no difference and is "NAN". Null when the shapes differ.
 */
export function diffRows(current: Cell[][], other: Cell[][]): Cell[][] | null {
  if (current.length !== other.length || current.some((row, i) => row.length !== other[i].length)) return null
  return current.map((row, i) =>
    row.map((a, j) => {
      const b = other[i][j]
      return typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b) ? a - b : 'NAN'
    }),
  )
}

/** CSV of the rows: a header with the column indices, then one line per row starting with its index. */
export function rowsToCsv(rows: Cell[][]): string {
  const cols = rows.reduce((m, r) => Math.max(m, r.length), 0)
  const lines = [['', ...Array.from({ length: cols }, (_, j) => String(j))].join(',')]
  rows.forEach((row, i) => lines.push(csvRow([i, ...row])))
  return lines.join('\n') + '\n'
}

/** The cells of a slice for a heat map: `[column, row, value]`, finite ones and the others apart. */
export interface HeatmapCells {
  finite: [number, number, number][]
  /** NaN / ±Inf cells with their label ("NAN", "INF", "-INF"). */
  nonFinite: [number, number, string][]
  rows: number
  cols: number
  min: number
  max: number
}

export function heatmapCells(rows: Cell[][]): HeatmapCells {
  const finite: [number, number, number][] = []
  const nonFinite: [number, number, string][] = []
  let min = Infinity
  let max = -Infinity
  let cols = 0
  rows.forEach((row, y) => {
    cols = Math.max(cols, row.length)
    row.forEach((c, x) => {
      if (typeof c === 'number' && Number.isFinite(c)) {
        finite.push([x, y, c])
        if (c < min) min = c
        if (c > max) max = c
      } else {
        nonFinite.push([x, y, typeof c === 'string' ? c : String(c).toUpperCase()])
      }
    })
  })
  if (!finite.length) {
    min = 0
    max = 0
  }
  return { finite, nonFinite, rows: rows.length, cols, min, max }
}
