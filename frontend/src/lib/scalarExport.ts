// Every real point of a scalar step window, for CSV/JSON export (issue 13). The chart draws at most one
// M4 point set per pixel column; an export wants the real steps. The server answers a window with every
// real point when it holds at most `points` of them (scalar/metadata?start_step=&end_step=&points=, points
// <= WINDOW_MAX_POINTS), so a larger window is split in halves until each half fits: cheap count probes
// (points = 4) find the split, then each part is fetched whole. Nothing is dropped silently: a line that
// would pass the export's row limit is exported as the server's M4 reduction and flagged, and a run the
// server has no full-resolution series for (window.exact = false) is flagged as coming from the sample.
import type { ScalarPoint } from '@/api/types'
import type { WindowAnswer } from '@/charts/scalarOption'

/** The server's largest `points` (plugins/scalars.py WINDOW_MAX_POINTS; above it the server answers 400). */
export const WINDOW_MAX_POINTS = 100_000
/** The server's smallest `points`: one M4 bucket (first, last, min, max). */
export const MIN_POINTS = 4
/** Most rows one export holds, all lines together (~100 MB of CSV); beyond it lines are M4-reduced. */
export const EXPORT_MAX_ROWS = 2_000_000

/** The window request of one line: real points of steps [start, end] (null = open end), at most `points`. */
export type WindowFetch = (
  key: string,
  start: number | null,
  end: number | null,
  points: number,
  signal: AbortSignal,
) => Promise<WindowAnswer>

export interface ExportedLine {
  key: string
  points: ScalarPoint[]
  /** real points of the window on the server */
  total: number
  /** every real point of the window is in `points` (not an M4 reduction) */
  complete: boolean
  /** false: the server has no full-resolution series for this line and answered from its sample */
  exact: boolean
}

export interface ExportLimits {
  windowMax?: number
  maxRows?: number
}

/** Steps spanned by an answer's points (an M4 answer holds the window's first and last real point). */
function stepSpan(points: ScalarPoint[]): [number, number] | null {
  if (!points.length) return null
  let lo = Infinity
  let hi = -Infinity
  for (const p of points) {
    if (p.step < lo) lo = p.step
    if (p.step > hi) hi = p.step
  }
  return [lo, hi]
}

/**
 * Every real point of line `key` between steps `start` and `end` (null: the whole series), in step order.
 * At most `budget` rows: a window holding more is exported as the server's M4 reduction to
 * min(budget, windowMax) points (`complete: false`).
 */
export async function fetchAllPoints(
  fetch: WindowFetch,
  key: string,
  start: number | null,
  end: number | null,
  budget: number,
  signal: AbortSignal,
  limits: ExportLimits = {},
): Promise<ExportedLine> {
  const probe = await fetch(key, start, end, MIN_POINTS, signal)
  return collectLine(fetch, key, start, end, probe, budget, signal, limits.windowMax ?? WINDOW_MAX_POINTS)
}

/** fetchAllPoints once the line's count probe (`points` = 4 over the whole window) has answered. */
async function collectLine(
  fetch: WindowFetch,
  key: string,
  start: number | null,
  end: number | null,
  probe: WindowAnswer,
  budget: number,
  signal: AbortSignal,
  windowMax: number,
): Promise<ExportedLine> {
  const exact = probe.exact !== false
  const span = stepSpan(probe.points)
  if (!probe.total || !span) return { key, points: [], total: 0, complete: true, exact }
  if (probe.total > budget || (!exact && probe.total > windowMax)) {
    const ans = await fetch(key, start, end, reducedPoints(budget, windowMax), signal)
    return { key, points: ans.points, total: ans.total, complete: ans.points.length >= ans.total, exact }
  }
  let complete = true
  // Halves of [lo, hi] whose count `n` is known, fetched concurrently; the parts come back in step order.
  const collect = async (lo: number, hi: number, n: number): Promise<ScalarPoint[]> => {
    if (n === 0) return []
    if (n <= windowMax || lo >= hi) {
      const ans = await fetch(key, lo, hi, windowMax, signal)
      if (ans.total <= windowMax || lo >= hi) {
        if (ans.points.length < ans.total) complete = false
        return ans.points
      }
      n = ans.total // the run grew since the probe: split this part too
    }
    const mid = lo + Math.floor((hi - lo) / 2)
    const [left, right] = await Promise.all([
      fetch(key, lo, mid, MIN_POINTS, signal),
      fetch(key, mid + 1, hi, MIN_POINTS, signal),
    ])
    const [a, b] = await Promise.all([collect(lo, mid, left.total), collect(mid + 1, hi, right.total)])
    return a.concat(b)
  }
  const points = await collect(start ?? span[0], end ?? span[1], probe.total)
  return { key, points, total: complete ? points.length : Math.max(probe.total, points.length), complete, exact }
}

/** Points of the M4 reduction of a line over the row budget. */
function reducedPoints(budget: number, windowMax: number): number {
  return Math.max(MIN_POINTS, Math.min(budget, windowMax))
}

/**
 * Every real point of each line in the window, sharing one row limit in line order: the lines' counts are
 * probed first, then every line is fetched concurrently (the browser bounds the connections per host).
 */
export async function fetchExport(
  fetch: WindowFetch,
  keys: string[],
  start: number | null,
  end: number | null,
  signal: AbortSignal,
  limits: ExportLimits = {},
): Promise<ExportedLine[]> {
  const windowMax = limits.windowMax ?? WINDOW_MAX_POINTS
  const probes = await Promise.all(keys.map((key) => fetch(key, start, end, MIN_POINTS, signal)))
  let left = limits.maxRows ?? EXPORT_MAX_ROWS
  const budgets = probes.map((p) => {
    const budget = Math.max(MIN_POINTS, left)
    left -= p.total <= budget ? p.total : reducedPoints(budget, windowMax)
    return budget
  })
  return Promise.all(keys.map((key, i) => collectLine(fetch, key, start, end, probes[i], budgets[i], signal, windowMax)))
}

/** What an export holds, for the note under the chart and the file name. */
export interface ExportSummary {
  kind: 'all' | 'reduced' | 'sample'
  rows: number
  lines: number
  /** names of the lines exported M4-reduced (row limit) */
  reduced: string[]
  /** names of the lines that came from the server's sample (no full-resolution series) */
  sampled: string[]
}

export function summarizeExport(lines: ExportedLine[], nameOf: (key: string) => string = (k) => k): ExportSummary {
  const reduced = lines.filter((l) => l.exact && !l.complete).map((l) => nameOf(l.key))
  const sampled = lines.filter((l) => !l.exact).map((l) => nameOf(l.key))
  return {
    kind: reduced.length ? 'reduced' : sampled.length ? 'sample' : 'all',
    rows: lines.reduce((n, l) => n + l.points.length, 0),
    lines: lines.length,
    reduced,
    sampled,
  }
}

/**
 * File name of an export: `<base>[_steps<a>-<b>]_<what>.<ext>`, `what` = `all` (every real step),
 * `reduced` (some line M4-reduced at the row limit) or `sample` (some line from the reservoir sample).
 */
export function exportFileName(base: string, range: [number, number] | null, kind: ExportSummary['kind'], ext: string): string {
  const steps = range ? `_steps${range[0]}-${range[1]}` : ''
  return `${base}${steps}_${kind}.${ext}`
}
