// Watchpoint conditions as the debugger page edits them (pure; watchpoints.test.ts): the text in each
// parameter's input, checked against the range the server states (`in [0, inf)`, `finite`, ...),
// turned into a `watchpoints/check` request; which hits to highlight; when a dump has new iterations.
import type { ConditionParam, Dump, WatchCondition, WatchHit, WatchpointCheckResponse } from '@/api/debuggerTypes'

/** A parameter's input: the text typed (empty = not set). */
export type ParamValues = Record<string, string>

/** The inputs of a condition, filled with MindInsight's defaults (empty where it has none). */
export function defaultValues(cond: Pick<WatchCondition, 'params'>): ParamValues {
  const out: ParamValues = {}
  for (const p of cond.params) out[p.name] = p.default === null || p.default === undefined ? '' : String(p.default)
  return out
}

/** A server range such as `in [0, inf)`, `in (0, inf)`, `in [0, 100]` or `finite`. */
interface Interval {
  lo: number
  hi: number
  loOpen: boolean
  hiOpen: boolean
}

export function parseRange(range: string): Interval | null {
  const m = /^in\s*([[(])\s*(-?inf|[-+\d.eE]+)\s*,\s*(-?inf|[-+\d.eE]+)\s*([\])])$/.exec(range.trim())
  if (!m) return null
  const num = (s: string) => (s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s))
  return { lo: num(m[2]), hi: num(m[3]), loOpen: m[1] === '(', hiOpen: m[4] === ')' }
}

export type ParamProblem = 'number' | 'range' | null

/** What is wrong with a parameter's text: not a finite number, or outside its range; null when fine or empty. */
export function paramProblem(text: string, param: Pick<ConditionParam, 'range'>): ParamProblem {
  const s = text.trim()
  if (!s) return null
  const v = Number(s)
  if (!Number.isFinite(v)) return 'number'
  const r = parseRange(param.range)
  if (!r) return null
  const aboveLo = r.loOpen ? v > r.lo : v >= r.lo
  const belowHi = r.hiOpen ? v < r.hi : v <= r.hi
  return aboveLo && belowHi ? null : 'range'
}

/**
 * Conditions whose parameters have no default (too_large, too_small, range) need at least one of their
 * own set: the bounds of `range` (MindInsight's "support" parameters) never trigger alone.
 */
export function needsOne(cond: Pick<WatchCondition, 'params'>): boolean {
  return cond.params.length > 0 && cond.params.every((p) => p.default === null || p.default === undefined)
}

export interface ConditionProblem {
  /** A parameter's problem, by name. */
  params: Record<string, Exclude<ParamProblem, null>>
  /** None of the triggering parameters is set (see needsOne). */
  missing: boolean
}

export function conditionProblem(cond: Pick<WatchCondition, 'params'>, values: ParamValues): ConditionProblem | null {
  const params: Record<string, Exclude<ParamProblem, null>> = {}
  for (const p of cond.params) {
    const problem = paramProblem(values[p.name] ?? '', p)
    if (problem) params[p.name] = problem
  }
  const missing = needsOne(cond) && !cond.params.some((p) => !p.support && (values[p.name] ?? '').trim() !== '')
  return Object.keys(params).length || missing ? { params, missing } : null
}

/** One condition of a `watchpoints/check` request: the set parameters as numbers. */
export function conditionRequest(
  cond: WatchCondition,
  values: ParamValues,
  targets?: string,
): { id: string; params?: Record<string, number>; targets?: string } {
  const params: Record<string, number> = {}
  for (const p of cond.params) {
    const s = (values[p.name] ?? '').trim()
    if (s !== '') params[p.name] = Number(s)
  }
  return { id: cond.id, ...(Object.keys(params).length ? { params } : {}), ...(targets ? { targets } : {}) }
}

export function hitKey(h: Pick<WatchHit, 'condition' | 'rank' | 'graph_id' | 'iteration' | 'op_name' | 'io' | 'slot'>): string {
  return `${h.condition}|${h.rank}|${h.graph_id}|${h.iteration}|${h.op_name}|${h.io}|${h.slot}`
}

/**
 * The first op where NaN/Inf appears: the earliest of the `nan_or_inf` first hits, in the order the
 * server lists hits (rank, graph, iteration, then execution order). Null when there is none.
 */
export function firstNanInf(res: Pick<WatchpointCheckResponse, 'first'> | null): WatchHit | null {
  const firsts = (res?.first ?? []).filter((h) => h.condition === 'nan_or_inf')
  if (!firsts.length) return null
  const order = (h: WatchHit): number[] => [h.iteration, h.rank, h.graph_id, h.execution_order ?? Infinity, h.timestamp ?? Infinity]
  return firsts.reduce((best, h) => {
    const a = order(h)
    const b = order(best)
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? h : best
    return best
  })
}

/** A dump's iterations per (rank, graph), as one string: it changes when iterations appear or go. */
export function dumpSignature(dump: Dump | null | undefined): string {
  if (!dump) return ''
  return dump.graphs
    .map((g) => `${g.rank}/${g.graph_id}:${g.iterations.join(',')}`)
    .sort()
    .join(' ')
}

/** The iterations of (rank, graph) in `after` that `before` did not have. */
export function newIterations(before: Dump | null | undefined, after: Dump, rank: number, graphId: number): number[] {
  const of = (d: Dump | null | undefined) => d?.graphs.find((g) => g.rank === rank && g.graph_id === graphId)?.iterations ?? []
  const old = new Set(of(before))
  return of(after).filter((i) => !old.has(i))
}
