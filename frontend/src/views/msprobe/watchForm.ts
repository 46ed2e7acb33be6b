// The Watchpoints panel of the msprobe dump page (pure; watchForm.test.ts): a condition's form as
// GET msprobe/watch/conditions states it (MindInsight's parameters and ranges, checked as the debugger page checks
// them), the scope of a run (the whole dump, the shown rank, the shown step and rank), the query it sends, and a hit's
// figures in the order of the condition's parameters.
import type { MsprobeUnsupported, MsprobeWatchCondition, MsprobeWatchHit, Stat } from '@/api/msprobeDumpsApi'
import { conditionProblem, type ParamValues } from '@/views/debugger/watchpoints'

export type WatchScope = 'dump' | 'rank' | 'here'
export const SCOPES: WatchScope[] = ['dump', 'rank', 'here']

/** step / rank of a run: nothing for the whole dump, the rank for all its steps, both for one step of one rank. */
export function scopeQuery(scope: WatchScope, here: { step: number; rank: string }): { step?: number; rank?: string } {
  if (scope === 'dump') return {}
  if (scope === 'rank') return { rank: here.rank }
  return { step: here.step, rank: here.rank }
}

/** The parameters typed, as numbers (an empty input is left to the server: MindInsight's default, or not set). */
export function paramQuery(cond: Pick<MsprobeWatchCondition, 'params'>, values: ParamValues): Record<string, number> {
  const out: Record<string, number> = {}
  for (const p of cond.params) {
    const s = (values[p.name] ?? '').trim()
    if (s !== '') out[p.name] = Number(s)
  }
  return out
}

export type FormProblem = 'number' | 'range' | 'only'

/** What keeps the form from running: the debugger page's checks (a number within the stated range; at least one
 * triggering parameter where none has a default), plus a parameter the statistics answer at one value only. */
export function formProblem(
  cond: Pick<MsprobeWatchCondition, 'id' | 'params'>,
  values: ParamValues,
  unsupported: MsprobeUnsupported[],
): { params: Record<string, FormProblem>; missing: boolean } | null {
  const base = conditionProblem(cond, values)
  const params: Record<string, FormProblem> = { ...(base?.params ?? {}) }
  for (const u of unsupported) {
    if (u.condition !== cond.id || u.only === undefined || params[u.param]) continue
    const s = (values[u.param] ?? '').trim()
    if (s !== '' && Number(s) !== u.only) params[u.param] = 'only'
  }
  const missing = base?.missing ?? false
  return Object.keys(params).length || missing ? { params, missing } : null
}

/** What the statistics cannot answer for this condition (shown under the form, never left out silently). */
export function unsupportedOf(all: MsprobeUnsupported[], conditionId: string): MsprobeUnsupported[] {
  return all.filter((u) => u.condition === conditionId && u.only === undefined)
}

const STATS = ['max', 'min', 'mean', 'norm'] as const

/** A hit's figures: the triggered parameters in the condition's order (nan_or_inf: the non-finite statistics). */
export function actualEntries(hit: Pick<MsprobeWatchHit, 'actual'>, cond?: Pick<MsprobeWatchCondition, 'params'>): [string, Stat][] {
  const order = cond?.params.length ? cond.params.map((p) => p.name) : [...STATS]
  const known = order.filter((name) => name in hit.actual).map((name): [string, Stat] => [name, hit.actual[name] ?? null])
  const rest = Object.keys(hit.actual)
    .filter((name) => !order.includes(name))
    .map((name): [string, Stat] => [name, hit.actual[name] ?? null])
  return [...known, ...rest]
}

export function hitKey(h: Pick<MsprobeWatchHit, 'rank' | 'step' | 'node' | 'io' | 'index'>): string {
  return `${h.rank}|${h.step}|${h.node}|${h.io}|${h.index}`
}
