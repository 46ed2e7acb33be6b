// Pure data shaping for the Ascend views (no Vue, no ECharts): step-time split, the cluster bars with slow
// ranks, bandwidth per link type, the src->dst matrix as heatmap cells, memory lines, NPU timeline lanes.
import type { CommOp, CompareOpType, Finding, MatrixCell, MemPoint, RankStepTime, SlowRank, StepTime } from '@/api/profilerApi'

/** The three parts a step's time is split into (they add up to the step time). */
export const PHASES = ['computing_us', 'communication_not_overlapped_us', 'free_us'] as const
export type Phase = (typeof PHASES)[number]

function n(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0
}

export interface PhaseShare {
  phase: Phase
  us: number
  percent: number
}

/** The phases averaged over steps, with each one's share of their sum. */
export function stepShares(steps: Pick<StepTime, Phase>[]): { total: number; shares: PhaseShare[] } {
  if (!steps.length) return { total: 0, shares: [] }
  const avg = PHASES.map((p) => steps.reduce((s, st) => s + n(st[p]), 0) / steps.length)
  const total = avg.reduce((s, v) => s + v, 0)
  return {
    total,
    shares: PHASES.map((phase, i) => ({ phase, us: avg[i], percent: total > 0 ? (100 * avg[i]) / total : 0 })),
  }
}

export interface ClusterBar {
  rank: number
  values: Record<Phase, number>
  total: number
  /** the backend's verdict: slow among its peers, in which phase, by how much */
  slow: { phase: string; deviation: number | null; stepDeviation: number | null }[]
  /** the phase segment to outline (the slow phase), null when the rank is not slow */
  slowPhase: Phase | null
}

function asPhase(phase: string): Phase | null {
  const key = `${phase}_us`
  return (PHASES as readonly string[]).includes(key) ? (key as Phase) : null
}

/** One bar per rank (in rank order); the slow flags come from the backend's rule. */
export function clusterBars(ranks: RankStepTime[], slow: SlowRank[]): ClusterBar[] {
  return [...ranks]
    .sort((x, y) => x.rank_id - y.rank_id)
    .map((r) => {
      const values = Object.fromEntries(PHASES.map((p) => [p, n(r[p])])) as Record<Phase, number>
      const mine = slow.filter((s) => s.rank_id === r.rank_id)
      return {
        rank: r.rank_id,
        values,
        total: PHASES.reduce((s, p) => s + values[p], 0),
        slow: mine.map((s) => ({ phase: s.phase, deviation: s.deviation, stepDeviation: s.step_deviation ?? null })),
        slowPhase: mine.length ? asPhase(mine[0].phase) : null,
      }
    })
}

/** The operator types with the largest |diff| first (the backend's order), at most `top`. */
export function topDiffs(rows: CompareOpType[], top: number): CompareOpType[] {
  return [...rows].sort((x, y) => Math.abs(y.diff_us) - Math.abs(x.diff_us) || x.op_type.localeCompare(y.op_type)).slice(0, top)
}

/** A relative difference for display: diff / base, null when the base is 0 or absent. */
export function relDiff(value: number | null, base: number | null): number | null {
  if (value === null || base === null || !base) return null
  return (value - base) / base
}

/** Where a finding leads: its view (a profiler tab) on its first rank. */
export function findingLink(f: Pick<Finding, 'view' | 'ranks'>): { tab: string; device: string | null } {
  return { tab: f.view, device: f.ranks.length ? String(f.ranks[0]) : null }
}

export const SEVERITIES = ['high', 'medium', 'low'] as const
/** Findings by severity (high first), then by id: the order the backend answers, kept for any client-side merge. */
export function sortFindings<T extends Pick<Finding, 'severity' | 'id'>>(list: T[]): T[] {
  return [...list].sort((x, y) => SEVERITIES.indexOf(x.severity) - SEVERITIES.indexOf(y.severity) || x.id.localeCompare(y.id))
}

export interface LinkBandwidth {
  link: string
  size_mb: number
  time_ms: number
  /** size / time (MB/ms = GB/s, the profiler's own formula); null when no transit time */
  gbps: number | null
  ops: number
}

/** Bandwidth per link type (HCCS, RDMA, PCIE, SDMA, SIO, ...) over all ops: sizes and times summed. */
export function bandwidthByLink(ops: CommOp[]): LinkBandwidth[] {
  const acc = new Map<string, LinkBandwidth>()
  for (const op of ops) {
    for (const [link, b] of Object.entries(op.bandwidth ?? {})) {
      let e = acc.get(link)
      if (!e) acc.set(link, (e = { link, size_mb: 0, time_ms: 0, gbps: null, ops: 0 }))
      e.size_mb += n(b.size_mb)
      e.time_ms += n(b.time_ms)
      e.ops += 1
    }
  }
  const out = [...acc.values()]
  for (const e of out) e.gbps = e.time_ms > 0 ? e.size_mb / e.time_ms : null
  return out.sort((x, y) => y.size_mb - x.size_mb || x.link.localeCompare(y.link))
}

/** The matrix's op keys (`allreduce-top1`, ..., `allreduce-total`), `*-total` first. */
export function matrixOps(cells: MatrixCell[]): string[] {
  const seen = [...new Set(cells.map((c) => c.op))]
  const totals = seen.filter((o) => o.endsWith('-total'))
  return [...totals, ...seen.filter((o) => !o.endsWith('-total'))]
}

export type MatrixMetric = 'gbps' | 'size_mb' | 'time_ms'

export interface Heatmap {
  /** every rank that appears (sorted) */
  ranks: number[]
  /** the source ranks (rows) and destination ranks (columns) that have a cell */
  srcs: number[]
  dsts: number[]
  /** [dst index in dsts (x), src index in srcs (y), value, transport] */
  cells: [number, number, number, string][]
  min: number
  max: number
}

/** The src->dst cells of one op as a heatmap; repeated pairs (several steps/groups) are summed, bandwidth = size / time. */
export function heatmap(cells: MatrixCell[], op: string, metric: MatrixMetric): Heatmap {
  const pairs = new Map<string, { src: number; dst: number; size: number; time: number; transport: Set<string> }>()
  for (const c of cells) {
    if (c.op !== op) continue
    const k = `${c.src}-${c.dst}`
    let p = pairs.get(k)
    if (!p) pairs.set(k, (p = { src: c.src, dst: c.dst, size: 0, time: 0, transport: new Set() }))
    p.size += n(c.size_mb)
    p.time += n(c.time_ms)
    if (c.transport) p.transport.add(c.transport)
  }
  const sorted = (xs: number[]) => [...new Set(xs)].sort((x, y) => x - y)
  const list = [...pairs.values()]
  const ranks = sorted(list.flatMap((p) => [p.src, p.dst]))
  const srcs = sorted(list.map((p) => p.src))
  const dsts = sorted(list.map((p) => p.dst))
  const out: Heatmap['cells'] = []
  for (const p of list) {
    const v = metric === 'size_mb' ? p.size : metric === 'time_ms' ? p.time : p.time > 0 ? p.size / p.time : null
    if (v === null) continue
    out.push([dsts.indexOf(p.dst), srcs.indexOf(p.src), v, [...p.transport].join('/')])
  }
  const values = out.map((c) => c[2])
  return { ranks, srcs, dsts, cells: out, min: values.length ? Math.min(...values) : 0, max: values.length ? Math.max(...values) : 0 }
}

export interface MemLine {
  component: string
  kind: 'allocated' | 'reserved'
  /** [µs since the first record, MB] */
  points: [number, number][]
}

/** Two lines per component (allocated, reserved), each without the component's empty cells; time from the first record. */
export function memoryLines(series: Record<string, MemPoint[]>): { t0: number; lines: MemLine[] } {
  const all = Object.values(series).flat()
  const t0 = all.length ? Math.min(...all.map((p) => p[0])) : 0
  const lines: MemLine[] = []
  for (const component of Object.keys(series).sort()) {
    for (const [kind, col] of [['allocated', 1], ['reserved', 2]] as const) {
      const points = series[component].filter((p) => p[col] !== null).map((p) => [p[0] - t0, p[col] as number] as [number, number])
      if (points.length) lines.push({ component, kind, points })
    }
  }
  return { t0, lines }
}

/** The device-side processes of an Ascend trace: hardware streams, HCCL, the overlap analysis. */
export const NPU_PROCESSES = ['Ascend Hardware', 'HCCL', 'Overlap Analysis']
export function isNpuProcess(name: string): boolean {
  return NPU_PROCESSES.some((p) => name === p || name.startsWith(`${p} `))
}

/** A unit chosen for a set of values, and the factor from the data's unit to it. */
export interface ScaledUnit {
  unit: string
  scale: number
}
// decimal steps, as the profiler writes them (Transit Size(MB) is 10^6 bytes; MB/ms is GB/s)
const UNIT_LADDERS: Record<string, [string, number][]> = {
  'GB/s': [['GB/s', 1], ['MB/s', 1e3], ['KB/s', 1e6], ['B/s', 1e9]],
  'KB/s': [['GB/s', 1e-6], ['MB/s', 1e-3], ['KB/s', 1], ['B/s', 1e3]],
  KB: [['GB', 1e-6], ['MB', 1e-3], ['KB', 1], ['B', 1e3]],
  MB: [['GB', 1e-3], ['MB', 1], ['KB', 1e3], ['B', 1e6]],
  ms: [['s', 1e-3], ['ms', 1], ['µs', 1e3], ['ns', 1e6]],
}

/** The largest unit in which `max` (in `unit`) is at least 1: 0.0842 GB/s -> MB/s, 96e-6 MB -> B, 0.012 ms -> µs. */
export function autoUnit(unit: string, max: number): ScaledUnit {
  const ladder = UNIT_LADDERS[unit]
  const a = Math.abs(max)
  if (!ladder || !(a > 0) || !Number.isFinite(a)) return { unit, scale: 1 }
  const hit = ladder.find(([, s]) => a * s >= 1) ?? ladder[ladder.length - 1]
  return { unit: hit[0], scale: hit[1] }
}

/** `digits` significant digits, no trailing zeros (0.0571 -> "0.0571", 57.14 -> "57.1", 1234 -> "1230"). */
export function sigDigits(v: number, digits = 3): string {
  if (!Number.isFinite(v)) return String(v)
  return String(Number(v.toPrecision(digits)))
}
