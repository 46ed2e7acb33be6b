// The dataset graph (`datasets/dataset_graph`) is a tree rooted at the last operation (e.g.
// Batch) whose `children` are the operations feeding it. Flattened here into a list of ops with
// a parent id, from which the page draws source -> ... -> last operation.
import type { DatasetGraphNode } from '@/api/types'

export interface PipelineOp {
  id: string
  opType: string
  parent: string | null
  isSource: boolean
  params: Record<string, unknown>
}

export type OpCategory = 'create' | 'map' | 'shuffle' | 'batch' | 'repeat' | 'operator'

export function buildPipeline(root: DatasetGraphNode): PipelineOp[] {
  const out: PipelineOp[] = []
  const walk = (n: DatasetGraphNode, id: string, parent: string | null) => {
    const children = Array.isArray(n.children) ? n.children : []
    const params: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(n)) if (k !== 'children' && k !== 'op_type') params[k] = v
    out.push({ id, opType: String(n.op_type ?? 'Unknown'), parent, isSource: children.length === 0, params })
    children.forEach((c, i) => walk(c, `${id}.${i}`, id))
  }
  if (root && typeof root === 'object' && Object.keys(root).length) walk(root, 'op0', null)
  return out
}

/** MindInsight's legend: Create (dataset sources), Map, Shuffle, Batch, Repeat, other operators. */
export function categoryOf(opType: string, isSource: boolean): OpCategory {
  const t = opType.toLowerCase()
  if (t === 'map') return 'map'
  if (t === 'shuffle') return 'shuffle'
  if (t === 'batch' || t === 'padded_batch' || t === 'paddedbatch') return 'batch'
  if (t === 'repeat') return 'repeat'
  if (isSource || t.endsWith('dataset')) return 'create'
  return 'operator'
}
