// msprobe dumps (issue 35): GET /v1/mindinsight/msprobe/{dumps,nodes,tree,node,anomalies,watch} (docs/msprobe.md).
// Statistics are numbers, null where msprobe wrote null, and "NAN" / "INF" / "-INF" for non-finite values.
import { getJson, type RequestOptions } from './client'
import type { Bucket, TensorData } from './types'
import type { ConditionParam } from './debuggerTypes'

export type Stat = number | 'NAN' | 'INF' | '-INF' | null

export interface MsprobeSlot {
  index: string
  dtype?: string
  shape?: number[]
  max?: Stat
  min?: Stat
  mean?: Stat
  norm?: Stat
  data_name?: string
  /** a plain (non-tensor) argument */
  type?: string | null
  value?: unknown
}

export interface MsprobeNode {
  name: string
  parent: string | null
  kind: string
  phase: string
  inputs: MsprobeSlot[]
  outputs: MsprobeSlot[]
  parameters: MsprobeSlot[]
  bad: boolean
}

export interface MsprobeDump {
  dump_id: string
  framework: string | null
  task: string | null
  level: string | null
  steps: number[]
  ranks: string[]
  being_written: string[]
  /** a step or rank folder held more entries than the server lists (100,000): the rest are not shown */
  folders_cut?: boolean
}

export interface MsprobeAnomaly extends MsprobeSlot {
  rank: string
  step: number
  node: string
  io: string
}

export interface MsprobeNodeHistory {
  name: string
  rank: string
  steps: { step: number; slots: (MsprobeSlot & { io: string })[] }[]
  stack: string[]
}

/** A window of one slot's tensor (task `tensor` dumps): the tensors page's answer, plus the whole histogram. */
export interface MsprobeTensor {
  shape: string
  data_name: string
  value: {
    dims: number[]
    data_type: string
    data: TensorData
    statistics: { max: number; min: number; avg: number; overall_nan_count: number | null; overall_pos_inf_count: number | null; overall_neg_inf_count: number | null }
  }
  histogram?: Bucket[]
}

/** One node at one step across the ranks (GET msprobe/node?across=ranks). */
export interface MsprobeNodeRanks {
  name: string
  step: number
  ranks: { rank: string; slots: (MsprobeSlot & { io: string })[] }[]
}

/** A watchpoint condition as msprobe's statistics can answer it (GET msprobe/watch/conditions): MindInsight's id,
 * the parameters that are computable (with MindInsight's defaults and ranges), the definition on the statistics. */
export interface MsprobeWatchCondition {
  id: string
  mindinsight: string
  /** compared with the same rank's previous dumped step */
  previous: boolean
  definition: string
  params: ConditionParam[]
}

/** A parameter the statistics cannot answer (`only`: the one value they can). */
export interface MsprobeUnsupported {
  condition: string
  param: string
  reason: string
  only?: number
}

export interface MsprobeWatchHit {
  rank: string
  step: number
  node: string
  io: string
  index: string
  /** the triggered parameters' actual values (nan_or_inf: the non-finite statistics) */
  actual: Record<string, Stat>
  max: Stat
  min: Stat
  mean: Stat
  norm: Stat
  previous_step?: number
  previous?: { max: Stat; min: Stat; mean: Stat; norm: Stat }
}

export interface MsprobeWatchAnswer {
  condition: string
  params: Record<string, number>
  definition: string
  total: number
  offset: number
  hits: MsprobeWatchHit[]
  unsupported: MsprobeUnsupported[]
  skipped: { step: string; rank: string; reason: string }[]
  incomplete: string[]
  steps_looked_at: number
}

const P = 'msprobe/'

export const msprobeDumpsApi = {
  dumps: (o?: RequestOptions) => getJson<{ dumps: MsprobeDump[]; truncated: boolean; load_status: string }>(P + 'dumps', {}, o),
  nodes: (q: { dump_id: string; step?: number; rank?: string; offset?: number; limit?: number; search?: string }, o?: RequestOptions) =>
    getJson<{ total: number; complete: boolean; step: number; rank: string; nodes: MsprobeNode[] }>(P + 'nodes', { ...q }, o),
  tree: (q: { dump_id: string; step?: number; rank?: string }, o?: RequestOptions) =>
    getJson<{ nodes: { name: string; parent: string | null; index: number | null; bad: boolean }[] }>(P + 'tree', { ...q }, o),
  node: (q: { dump_id: string; name: string; rank?: string }, o?: RequestOptions) => getJson<MsprobeNodeHistory>(P + 'node', { ...q }, o),
  nodeRanks: (q: { dump_id: string; name: string; step: number }, o?: RequestOptions) =>
    getJson<MsprobeNodeRanks>(P + 'node', { ...q, across: 'ranks' }, o),
  tensor: (q: { dump_id: string; step: number; rank: string; name: string; io: string; index: string; shape?: string; detail?: 'data' | 'histogram' }, o?: RequestOptions) =>
    getJson<MsprobeTensor>(P + 'tensor', { ...q }, o),
  watchConditions: (o?: RequestOptions) =>
    getJson<{ conditions: MsprobeWatchCondition[]; unsupported: MsprobeUnsupported[] }>(P + 'watch/conditions', {}, o),
  /** `params`: the condition's parameters by name (the query keys beside dump_id, condition, step, rank, offset, limit) */
  watch: (q: { dump_id: string; condition: string; step?: number; rank?: string; offset?: number; limit?: number }, params: Record<string, number>, o?: RequestOptions) =>
    getJson<MsprobeWatchAnswer>(P + 'watch', { ...params, ...q }, o),
  anomalies: (dumpId: string, o?: RequestOptions) =>
    getJson<{ first: MsprobeAnomaly[]; first_rank: string | null }>(P + 'anomalies', { dump_id: dumpId }, o),
}

/** A statistic for a table cell: significant digits, NaN/Inf spelled out, '–' where msprobe wrote null. */
export function formatStat(v: Stat | undefined): string {
  if (v === null || v === undefined) return '–'
  if (typeof v === 'string') return v === 'NAN' ? 'NaN' : v === 'INF' ? '+Inf' : '−Inf'
  return Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-4) ? v.toExponential(4) : String(Number(v.toPrecision(6)))
}

export function isNonFinite(v: Stat | undefined): boolean {
  return typeof v === 'string'
}
