// Pure helpers shared by the model- and data-lineage pages: columns, client-side sorting,
// brush filtering (the same rule ECharts' parallel axes apply) and CSV export.
//
// Both pages fetch every lineage once (no server paging) and sort, filter and page in the
// browser: the brush needs all rows anyway, and doing the sort on the same rows keeps the
// chart, the table, the row count and the CSV consistent with each other.
import { csvRow } from '@/lib/csv'

export type ColumnKind = 'number' | 'string'
export type ColumnGroup = 'data' | 'metric' | 'user' | 'hyper' | 'op'

export interface Column {
  /** Stable key: a model_lineage field, `metric/<x>`, `user_defined/<x>` or `op:<slot>`. */
  key: string
  /** Short label for the axis and the header. */
  label: string
  group: ColumnGroup
  kind: ColumnKind
}

export interface Row {
  id: string
  /** Position in the server's default order (newest first); ties in sorting keep it. */
  index: number
  tag: number
  remark: string
  values: Record<string, unknown>
}

export type SortDir = 'asc' | 'desc'

export function isMissing(v: unknown): boolean {
  return v === null || v === undefined || v === '' || (typeof v === 'number' && Number.isNaN(v))
}

/** `number` when every present value is a finite number, else `string`. */
export function kindOf(values: unknown[]): ColumnKind {
  const present = values.filter((v) => !isMissing(v))
  return present.length > 0 && present.every((v) => typeof v === 'number' && Number.isFinite(v)) ? 'number' : 'string'
}

/** A number as written: a float32 value (TensorBoard hparams and MindSpore metrics are float32) with the fewest
 * digits that read back to it (0.874, not 0.87400001), any other with up to 8 significant digits. */
function shortNumber(v: number): string {
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v)
  if (Math.fround(v) === v) {
    for (let p = 1; p <= 9; p++) {
      const short = Number(v.toPrecision(p))
      if (Math.fround(short) === v) return String(short)
    }
  }
  return String(Number(v.toPrecision(8)))
}

export function displayValue(v: unknown): string {
  if (isMissing(v)) return ''
  if (typeof v === 'number') return shortNumber(v)
  if (typeof v === 'string') return v
  return JSON.stringify(v)
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return collator.compare(displayValue(a), displayValue(b))
}

/** Value of a row for a column key; `tag` and `remark` are the row's notes. */
export function cellValue(row: Row, key: string): unknown {
  if (key === 'tag') return row.tag || null
  if (key === 'remark') return row.remark
  if (key === 'summary_dir') return row.id
  return row.values[key]
}

/**
 * Sorts a copy. Missing values always go last (in both directions), ties keep the default
 * order, so toggling the direction reverses only the rows that have a value.
 */
export function sortRows(rows: Row[], key: string | null, dir: SortDir): Row[] {
  const out = rows.slice()
  if (!key) return out.sort((a, b) => a.index - b.index)
  const sign = dir === 'desc' ? -1 : 1
  return out.sort((a, b) => {
    const va = cellValue(a, key)
    const vb = cellValue(b, key)
    const ma = isMissing(va)
    const mb = isMissing(vb)
    if (ma || mb) return ma === mb ? a.index - b.index : ma ? 1 : -1
    return sign * compareValues(va, vb) || a.index - b.index
  })
}

// ---------------------------------------------------------------- brushing

export interface Axis {
  key: string
  type: 'value' | 'category'
  /** Category axes: the category list; a value's coordinate is its index in it. */
  categories?: string[]
}

/** Active intervals per axis key, in data space (category axes: category index). */
export type Intervals = Record<string, [number, number][]>

/** The coordinate ECharts plots for a value on an axis, or null when it is not plotted. */
export function axisCoord(axis: Axis, v: unknown): number | null {
  if (axis.type === 'category') {
    const i = axis.categories?.indexOf(categoryOf(v)) ?? -1
    return i < 0 ? null : i
  }
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** Category label of a value (missing values share the category "—"). */
export function categoryOf(v: unknown): string {
  return isMissing(v) ? '—' : displayValue(v)
}

/**
 * Whether a row passes every brushed axis: the rule of ECharts' ParallelAxisModel.getActiveState
 * (a value inside any interval of each axis that has intervals; a value that is not plotted
 * on a brushed axis is out).
 */
export function passesBrush(row: Row, axes: Axis[], intervals: Intervals): boolean {
  for (const axis of axes) {
    const list = intervals[axis.key]
    if (!list || list.length === 0) continue
    const c = axisCoord(axis, cellValue(row, axis.key))
    if (c === null) return false
    if (!list.some(([lo, hi]) => Math.min(lo, hi) <= c && c <= Math.max(lo, hi))) return false
  }
  return true
}

export function hasBrush(intervals: Intervals): boolean {
  return Object.values(intervals).some((l) => l.length > 0)
}

// ---------------------------------------------------------------- CSV

export function toCsv(rows: Row[], columns: { key: string; label: string }[]): string {
  const head = csvRow(columns.map((c) => c.label))
  const body = rows.map((r) => csvRow(columns.map((c) => displayValue(cellValue(r, c.key)))))
  return [head, ...body].join('\n') + '\n'
}
