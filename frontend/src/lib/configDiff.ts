// Marks what changed between runs in a `text/compare` answer (the Config diff view). The first run is the
// baseline: against it each other run's value of a key is `same`, `changed`, `added` (the baseline has no such
// key) or `removed` (the baseline has it, this run does not). A row's kind sums its cells up.
import type { TextCompareResponse } from '@/api/types'

export type CellMark = 'base' | 'same' | 'changed' | 'added' | 'removed' | 'absent'
export type RowKind = 'same' | 'changed' | 'added' | 'removed' | 'mixed'

export interface DiffCell {
  trainId: string
  value: string | null
  mark: CellMark
  /** why this run's value did not parse as a Python literal (it was compared whole) */
  error?: string
  /** this run's value was cut by the server (--text-max-chars): only its start was compared */
  truncated?: boolean
}

export interface DiffRow {
  key: string
  kind: RowKind
  cells: DiffCell[]
}

export function markCell(base: string | null, value: string | null, isBase: boolean): CellMark {
  if (isBase) return value === null ? 'absent' : 'base'
  if (base === null) return value === null ? 'absent' : 'added'
  if (value === null) return 'removed'
  return value === base ? 'same' : 'changed'
}

/** The row kind: what the other runs did to the baseline's key (`mixed` when they did different things). */
export function rowKind(cells: DiffCell[]): RowKind {
  const marks = new Set(cells.slice(1).map((c) => c.mark).filter((m) => m !== 'same' && m !== 'absent'))
  if (!marks.size) return 'same'
  if (marks.size > 1) return 'mixed'
  return [...marks][0] as RowKind
}

/** Rows of the diff, in the server's key order; with `onlyDiffering` (the default), only the keys that differ. */
export function diffRows(res: TextCompareResponse, onlyDiffering = true): DiffRow[] {
  const ids = res.train_ids
  const rows: DiffRow[] = []
  for (const k of res.keys) {
    if (onlyDiffering && !k.differs) continue
    const base = k.values[ids[0]] ?? null
    const cells = ids.map((id, i) => {
      const value = k.values[id] ?? null
      const cell: DiffCell = { trainId: id, value, mark: markCell(base, value, i === 0) }
      if (k.errors?.[id]) cell.error = k.errors[id]
      if (k.truncated?.includes(id)) cell.truncated = true
      return cell
    })
    rows.push({ key: k.key, kind: rowKind(cells), cells })
  }
  return rows
}

/** Counts per row kind (for the summary line above the table). */
export function countKinds(rows: DiffRow[]): Record<RowKind, number> {
  const out: Record<RowKind, number> = { same: 0, changed: 0, added: 0, removed: 0, mixed: 0 }
  for (const r of rows) out[r.kind]++
  return out
}

/** Rows whose key or any value contains `query` (case-insensitive). */
export function filterRows(rows: DiffRow[], query: string): DiffRow[] {
  const q = query.trim().toLowerCase()
  if (!q) return rows
  return rows.filter((r) => r.key.toLowerCase().includes(q) || r.cells.some((c) => c.value?.toLowerCase().includes(q)))
}
