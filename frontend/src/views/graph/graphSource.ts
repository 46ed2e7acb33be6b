// Where a graph explorer gets its nodes from: the four graph views every graph endpoint family
// answers alike (`datavisual/graphs/*` for a run, `debugger/graph/*` for a dump, `models/graph/*`
// for a model file; docs/graph.md, docs/debugger.md). The explorer reloads when `key` changes.
import type { GraphNode } from '@/api/types'

/** One level of a `single-node` answer: a scope's listing and, nested, the next scope down. */
export interface SingleNodeLevel {
  nodes: GraphNode[]
  scope_name: string
  children?: SingleNodeLevel | Record<string, never>
}

export interface GraphSource {
  /** Identity of the graph shown: a new key is a new graph (reload from its root). */
  key: string
  /** The children of a scope (`''` or undefined: the root). */
  nodes(name: string | undefined, signal?: AbortSignal): Promise<{ nodes: GraphNode[] }>
  /** One page of a scope's children (`offset` is a page index). */
  nodesPage(name: string, limit: number, offset: number, signal?: AbortSignal): Promise<{ nodes: GraphNode[]; total?: number }>
  /** Nodes whose name contains `search` (nested as the server answers them). */
  names(search: string, signal?: AbortSignal): Promise<{ nodes: GraphNode[] }>
  /** Every scope listing from the root down to `name`. */
  singleNode(name: string, signal?: AbortSignal): Promise<SingleNodeLevel>
}

/** The levels of a single-node answer, from the root down. */
export function singleNodeLevels(res: SingleNodeLevel): SingleNodeLevel[] {
  const out: SingleNodeLevel[] = []
  let level: SingleNodeLevel | undefined = res
  while (level && Array.isArray(level.nodes)) {
    out.push(level)
    level = level.children && 'nodes' in level.children ? (level.children as SingleNodeLevel) : undefined
  }
  return out
}
