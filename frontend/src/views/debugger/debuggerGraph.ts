// What the debugger's graph marks (pure; debuggerGraph.test.ts). A drawn node is marked
//   `first`  when it is, or holds, the first op where NaN/Inf appears in the shown iteration;
//   `bad`    when one of its dumped tensors has NaN/Inf or a watchpoint hit in that iteration, or a
//            scope holds such a node;
//   `dumped` when it has dumped tensors.
// Hits name their node by its full scope name; the tree names scopes the same way except aggregation
// scopes (`<scope>/<Type>[n]_k`, holding `<scope>/<Type>...` nodes), matched by scope and type.
import type { DumpGraphNode, DumpTensor, WatchHit } from '@/api/debuggerTypes'
import type { NodeMark } from '@/views/graph/graphStyle'

export interface MarkContext {
  /** Tree names of the first NaN/Inf ops of the shown iteration. */
  first: ReadonlySet<string>
  /** op_name of every tensor with a hit in the shown iteration. */
  hitOps: ReadonlySet<string>
  /** Full node names of those hits. */
  hitNodes: readonly string[]
}

export function hasNanInf(t: Pick<DumpTensor, 'nan_count' | 'pos_inf_count' | 'neg_inf_count'>): boolean {
  return (t.nan_count ?? 0) + (t.pos_inf_count ?? 0) + (t.neg_inf_count ?? 0) > 0
}

/** How the tensor view shows a tensor's values. */
export type TensorView = 'table' | 'heatmap' | 'histogram'

/** A tensor of an iteration as the page's URL names it: `io:slot:op_name`. */
export function tensorKey(r: Pick<DumpTensor, 'op_name' | 'io' | 'slot'>): string {
  return `${r.io}:${r.slot}:${r.op_name}`
}

export function parseTensorKey(key: string): { io: 'input' | 'output'; slot: number; op_name: string } | null {
  const m = /^(input|output):(\d+):(.+)$/.exec(key)
  return m ? { io: m[1] as 'input' | 'output', slot: Number(m[2]), op_name: m[3] } : null
}

const AGGREGATION = /^(.*)\/([^/[\]]+)\[\d+\]_\d+$/

/** Whether the scope `scope` (a tree name) holds the node of full name `full`. */
export function scopeHolds(scope: string, full: string): boolean {
  if (full.startsWith(scope + '/')) return true
  const m = AGGREGATION.exec(scope)
  if (!m) return false
  const [, parent, type] = m
  if (!full.startsWith(parent + '/')) return false
  const rest = full.slice(parent.length + 1)
  return !rest.includes('/') && rest.startsWith(type)
}

export function nodeMark(name: string, node: DumpGraphNode | undefined, ctx: MarkContext): NodeMark | undefined {
  for (const f of ctx.first) if (f === name || f.startsWith(name + '/')) return 'first'
  const tensors = node?.tensors ?? []
  if (tensors.some((t) => hasNanInf(t) || ctx.hitOps.has(t.op_name))) return 'bad'
  const scope = node?.type === 'name_scope' || node?.type === 'aggregation_scope'
  if (scope && ctx.hitNodes.some((full) => scopeHolds(name, full))) return 'bad'
  return tensors.length ? 'dumped' : undefined
}

/** The mark context of the iteration shown: hits of that (rank, graph, iteration) only. */
export function markContext(hits: readonly WatchHit[], rank: number, graphId: number, iteration: number, firstNames: Iterable<string>): MarkContext {
  const here = hits.filter((h) => h.rank === rank && h.graph_id === graphId && h.iteration === iteration)
  return {
    first: new Set(firstNames),
    hitOps: new Set(here.map((h) => h.op_name)),
    hitNodes: [...new Set(here.map((h) => h.node_name).filter((n): n is string => !!n))],
  }
}
