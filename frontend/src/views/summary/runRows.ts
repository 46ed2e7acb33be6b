// The summary list's model: the server pages entries (`train-jobs?collapse_groups=true&search=`), a rank
// group is one entry that can be expanded into its ranks (`train-jobs?group=`). This module turns the
// loaded pages and the expanded groups into the flat rows the virtual list draws, and says which pages
// the visible rows still need. Pure functions: unit-tested in runRows.test.ts.
import type { TrainJob } from '@/api/client'

export const PAGE_SIZE = 100

export type DisplayRow =
  | { kind: 'entry'; index: number; job: TrainJob | undefined }
  | { kind: 'member'; index: number; job: TrainJob; groupId: string }
  | { kind: 'members-loading'; index: number; groupId: string }

/** Expanded groups: id -> its ranks, or null while they load. */
export type Expanded = ReadonlyMap<string, readonly TrainJob[] | null>

/** One row per entry (loaded or not), followed by the ranks of each expanded group. */
export function displayRows(total: number, entries: readonly (TrainJob | undefined)[], expanded: Expanded): DisplayRow[] {
  const rows: DisplayRow[] = []
  for (let index = 0; index < total; index++) {
    const job = entries[index]
    rows.push({ kind: 'entry', index, job })
    const groupId = job?.group?.id
    if (groupId === undefined || !expanded.has(groupId)) continue
    const members = expanded.get(groupId)
    if (!members) rows.push({ kind: 'members-loading', index, groupId })
    else for (const m of members) rows.push({ kind: 'member', index, job: m, groupId })
  }
  return rows
}

/** Page indexes (offset for `train-jobs`) that hold the entries of `rows` not loaded yet. */
export function missingPages(rows: readonly DisplayRow[], loaded: ReadonlySet<number>, pageSize = PAGE_SIZE): number[] {
  const pages = new Set<number>()
  for (const row of rows) {
    const page = Math.floor(row.index / pageSize)
    if (!loaded.has(page)) pages.add(page)
  }
  return [...pages].sort((a, b) => a - b)
}

/** `entries` with one page's jobs written in at their indexes (a new array; the old one is not changed). */
export function withPage(
  entries: readonly (TrainJob | undefined)[],
  total: number,
  page: number,
  jobs: readonly TrainJob[],
  pageSize = PAGE_SIZE,
): (TrainJob | undefined)[] {
  const next = entries.slice(0, total)
  next.length = total
  jobs.forEach((job, i) => {
    const at = page * pageSize + i
    if (at < total) next[at] = job
  })
  return next
}

/** The visible slice [first, last) of `count` rows of `rowHeight` px for a viewport, with `overscan` rows. */
export function visibleRange(
  scrollTop: number,
  viewHeight: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan)
  const last = Math.min(count, Math.ceil((scrollTop + viewHeight) / rowHeight) + overscan)
  return [first, Math.max(first, last)]
}
