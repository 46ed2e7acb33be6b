// Data lineage: a run's dataset graph (`dataset_graph` of a lineage object, root = the last
// operation, `children` = its inputs) flattened into aligned operation "slots", so runs can
// be compared column by column: `Map #2` is the second Map of every pipeline, counting from
// the source.
import type { DatasetGraphNode, LineageObject } from '@/api/client'
import { isMissing, type Column, type Row } from '../model-lineage/lineageTable'

export interface OpInstance {
  /** `<op_type>#<n>`, n counted from the source (1-based). */
  slot: string
  opType: string
  params: Record<string, unknown>
}

/** Post-order (inputs first, so the source comes first and the root last). */
export function flattenPipeline(root: DatasetGraphNode | undefined): OpInstance[] {
  const out: OpInstance[] = []
  const seen: Record<string, number> = {}
  const visit = (node: DatasetGraphNode, depth: number): void => {
    if (depth > 200) return
    for (const child of node.children ?? []) visit(child, depth + 1)
    const opType = String(node.op_type ?? 'Unknown')
    seen[opType] = (seen[opType] ?? 0) + 1
    const params: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(node)) if (k !== 'children' && k !== 'op_type') params[k] = v
    out.push({ slot: `${opType}#${seen[opType]}`, opType, params })
  }
  if (root && Object.keys(root).length) visit(root, 0)
  return out
}

/** MindSpore writes column names with their JSON quotes (`"\"image\""`). */
function unquote(s: string): string {
  return /^".*"$/.test(s) ? s.slice(1, -1) : s
}

/** A compact, readable form of one parameter value. */
export function paramText(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'string') return unquote(v)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (Array.isArray(v)) {
    return `[${v
      .map((x) => {
        if (x && typeof x === 'object' && 'tensor_op_name' in x) {
          const op = x as { tensor_op_name?: string; tensor_op_params?: unknown }
          let args = ''
          if (typeof op.tensor_op_params === 'string') {
            try {
              const p = JSON.parse(op.tensor_op_params) as Record<string, unknown>
              args = Object.entries(p)
                .map(([k, val]) => `${k}=${paramText(val)}`)
                .join(', ')
            } catch {
              args = op.tensor_op_params
            }
          }
          return `${op.tensor_op_name}(${args})`
        }
        return paramText(x)
      })
      .join(', ')}]`
  }
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, val]) => `${k}: ${paramText(val)}`)
      .join(', ')}}`
  }
  return String(v)
}

export function paramsText(params: Record<string, unknown>, keys?: string[]): string {
  return (keys ?? Object.keys(params).sort()).map((k) => `${k}=${paramText(params[k])}`).join(', ')
}

export interface OpDetail {
  vary: string
  rest: string
  full: string
}

export interface DataLineage {
  rows: Row[]
  /** Per row and op column: the varying parameters, the others, and all (table cells, CSV). */
  detail: Record<string, Record<string, OpDetail>>
  columns: Column[]
  /** Per op column: the parameter names that differ between runs. */
  varying: Record<string, string[]>
}

/**
 * Rows: `dataset_mark`, `pipeline` (the op chain), and per op slot `op:<slot>` = the
 * parameters that differ between the runs that have that op (or the op type when none
 * differs; missing when the run lacks the op). Slots are ordered by their mean relative
 * position in the pipelines.
 */
export function dataLineage(objects: LineageObject[], opLabel: (slot: string, many: boolean) => string): DataLineage {
  const withGraph = objects.filter((o) => o.dataset_graph && Object.keys(o.dataset_graph).length > 0)
  const pipes = withGraph.map((o) => flattenPipeline(o.dataset_graph))
  const pos: Record<string, number[]> = {}
  const maxCount: Record<string, number> = {}
  for (const ops of pipes) {
    ops.forEach((op, i) => {
      ;(pos[op.slot] ??= []).push(ops.length > 1 ? i / (ops.length - 1) : 0)
      const n = Number(op.slot.split('#').pop())
      maxCount[op.opType] = Math.max(maxCount[op.opType] ?? 0, n)
    })
  }
  const mean = (l: number[]) => l.reduce((a, b) => a + b, 0) / l.length
  const slots = Object.keys(pos).sort((a, b) => mean(pos[a]) - mean(pos[b]) || a.localeCompare(b))

  const varying: Record<string, string[]> = {}
  for (const slot of slots) {
    const instances = pipes.map((ops) => ops.find((op) => op.slot === slot)).filter((x): x is OpInstance => !!x)
    const keys = new Set<string>()
    for (const inst of instances) for (const k of Object.keys(inst.params)) keys.add(k)
    varying[`op:${slot}`] = [...keys]
      .sort()
      .filter((k) => new Set(instances.map((inst) => (k in inst.params ? paramText(inst.params[k]) : '\u0000'))).size > 1)
  }

  const detail: Record<string, Record<string, OpDetail>> = {}
  const rows: Row[] = withGraph.map((o, index) => {
    const ops = pipes[index]
    const values: Record<string, unknown> = {
      dataset_mark: (o.model_lineage as Record<string, unknown> | undefined)?.dataset_mark ?? null,
      pipeline: ops.map((op) => op.opType).join(' → '),
    }
    const full: Record<string, OpDetail> = {}
    for (const slot of slots) {
      const key = `op:${slot}`
      const op = ops.find((x) => x.slot === slot)
      if (!op) {
        values[key] = null
        continue
      }
      const vary = varying[key].filter((k) => k in op.params)
      values[key] = vary.length ? paramsText(op.params, vary) : op.opType
      const rest = Object.keys(op.params)
        .sort()
        .filter((k) => !vary.includes(k))
      full[key] = { vary: vary.length ? paramsText(op.params, vary) : '', rest: paramsText(op.params, rest), full: paramsText(op.params) }
    }
    detail[o.summary_dir] = full
    return { id: o.summary_dir, index, tag: Number(o.added_info?.tag ?? 0) || 0, remark: String(o.added_info?.remark ?? ''), values }
  })

  const columns: Column[] = [
    { key: 'dataset_mark', label: 'dataset_mark', group: 'data', kind: 'string' },
    { key: 'pipeline', label: 'pipeline', group: 'data', kind: 'string' },
    ...slots.map((slot): Column => {
      const type = slot.split('#')[0]
      return { key: `op:${slot}`, label: opLabel(slot, (maxCount[type] ?? 1) > 1), group: 'op', kind: 'string' }
    }),
  ]
  return { rows, detail, columns, varying }
}

/** The most common value of a column (ties: the first seen). */
export function modeOf(rows: Row[], key: string): unknown {
  const counts = new Map<string, { n: number; v: unknown }>()
  for (const r of rows) {
    const v = r.values[key]
    const k = isMissing(v) ? '\u0000' : String(v)
    const c = counts.get(k)
    if (c) c.n++
    else counts.set(k, { n: 1, v })
  }
  let best: { n: number; v: unknown } | null = null
  for (const c of counts.values()) if (!best || c.n > best.n) best = c
  return best?.v
}
