// Typed shapes of the offline debugger (`debugger/*`) and model file (`models/*`) endpoints
// (docs/debugger.md). Only what the UI reads is required.
import type { Bucket, GraphNode, LoadStatus, TensorData, TensorStatistics } from './types'

export interface DumpGraph {
  rank: number
  graph_id: number
  iterations: number[]
}

export interface Dump {
  dump_id: string
  net_name: string
  ranks: number[]
  graphs: DumpGraph[]
  device_target?: string | null
  ms_version?: string | null
}

export interface DumpsResponse {
  dumps: Dump[]
  truncated: boolean
  load_status?: LoadStatus
}

/** Where a tensor table / tensor / graph request points in a dump. */
export interface DumpWhere {
  dump_id: string
  rank: number
  graph_id: number
}

export type TensorIo = 'input' | 'output'

/** A row of the tensor table: one dumped tensor with statistics over its finite values. */
export interface DumpTensor {
  op_name: string
  op_type: string
  io: TensorIo
  slot: number
  dtype: string
  /** null when the file cannot be read (see `error`). */
  shape: number[] | null
  count: number | null
  min: number | null
  max: number | null
  mean: number | null
  std: number | null
  nan_count: number | null
  pos_inf_count: number | null
  neg_inf_count: number | null
  zero_count: number | null
  node_name: string | null
  finite_count?: number | null
  abs_mean?: number | null
  execution_order?: number | null
  timestamp?: number | null
  node_match?: string | null
  file?: string | null
  size_bytes?: number | null
  source?: 'npy' | 'statistic.csv' | 'deferred'
  error?: string | null
}

export interface TensorTableResponse {
  total: number
  offset: number
  limit: number
  tensors: DumpTensor[]
  truncated?: boolean
  skipped_count?: number
}

/** The value of `debugger/tensor` (detail=data): a window, as `datavisual/tensors` answers it. */
export interface DumpTensorValue {
  dims: number[]
  data_type: string
  data?: TensorData
  statistics?: TensorStatistics | null
}

export interface DumpTensorResponse {
  tensor: DumpTensor
  /** The window actually read, e.g. `[0, 0, :10, :10]`. */
  shape?: string
  value?: DumpTensorValue
  histogram_buckets?: Bucket[]
}

export interface DiffStatistics {
  count: number
  min: number | null
  max: number | null
  mean: number | null
  std: number | null
  abs_mean: number | null
  nan_count: number
  pos_inf_count: number
  neg_inf_count: number
}

export interface TensorCompareResponse {
  tensor: DumpTensor
  other: DumpTensor
  shape?: string
  value: DumpTensorValue & { current?: TensorData; other?: TensorData }
  diff_statistics: DiffStatistics
}

export interface ConditionParam {
  name: string
  default: number | null
  /** e.g. `in [0, inf)`, `finite`, `in [0, 100]` */
  range: string
  /** MindInsight's "support" parameter: a bound that never triggers alone (range_start/end). */
  support: boolean
  /** false: an advanced parameter MindInsight did not show (atol, epsilon). */
  visible: boolean
}

export interface WatchCondition {
  id: string
  /** MindInsight's names for it. */
  mindinsight: string
  mindinsight_targets: string
  needs: string
  params: ConditionParam[]
}

export interface ConditionsResponse {
  conditions: WatchCondition[]
  targets: string[]
}

export interface WatchpointCheckRequest {
  dump_id: string
  conditions: { id: string; params?: Record<string, number>; targets?: string }[]
  targets?: string
  ranks?: number[]
  graph_ids?: number[]
  iterations?: number[]
}

export interface WatchHit {
  condition: string
  rank: number
  graph_id: number
  iteration: number
  op_name: string
  op_type?: string
  io: TensorIo
  slot: number
  value: number | null
  node_name: string | null
  execution_order?: number | null
  timestamp?: number | null
  params?: { name: string; threshold: number | null; actual: number | null }[]
  previous_iteration?: number | null
}

export interface WatchpointCheckResponse {
  hits: WatchHit[]
  hit_count: number
  hits_truncated: boolean
  first: WatchHit[]
  checked_tensors: number
  checked_iterations: number
  errors: { op_name?: string; iteration?: number; error?: string; [k: string]: unknown }[]
  error_count: number
  not_checked_without_previous: number
  truncated: boolean
}

/** A graph node of `debugger/graph/nodes?iteration=`: the graph views' node with its dumped tensors. */
export type DumpGraphNode = GraphNode & { tensors?: DumpTensor[] }

// ---------------------------------------------------------------- model files

export type ModelKind = 'mindir' | 'checkpoint' | 'safetensors' | 'safetensors-index' | 'safetensors-ranks' | 'ir' | 'dot' | 'pb' | 'onnx' | 'ms'

export interface ModelFile {
  model_id: string
  kind: ModelKind
  size?: number | null
  mtime?: number | null
}

export interface ModelListResponse {
  models: ModelFile[]
  truncated: boolean
  load_status?: LoadStatus
}

export interface ModelNode {
  name: string
  op_type: string
  full_name: string
  inputs: string[]
  output_shapes: number[][]
  output_dtype: string
  subgraph: string
  attributes: Record<string, unknown>
}

export interface ModelGraphResponse {
  model_id: string
  kind: ModelKind
  graph_name: string
  node_count: number
  parameter_count: number
  nodes: ModelNode[]
  parameters: { name: string; shape: number[]; dtype: string }[]
  inputs?: unknown
  outputs?: unknown
  /** The constants' names (MindIR value nodes). */
  constants?: unknown[] | number
  facts?: Record<string, unknown>
}

export interface ModelParameter {
  name: string
  shape: number[]
  dtype: string
  count?: number | null
  min: number | null
  max: number | null
  mean: number | null
  std: number | null
  abs_mean?: number | null
  nan_count: number | null
  pos_inf_count?: number | null
  neg_inf_count?: number | null
  zero_count?: number | null
  finite_count?: number | null
  error?: string | null
}

export interface ModelParametersResponse {
  model_id: string
  kind: ModelKind
  total: number
  parameters: ModelParameter[]
  /** safetensors: the header's `__metadata__` (an index set: the index's `metadata` + `shards`) */
  metadata?: Record<string, unknown>
}

export interface ParameterDiff {
  name: string
  shape: number[]
  other_shape: number[]
  dtype: string
  other_dtype: string
  equal: boolean | null
  diff_count?: number | null
  diff_min?: number | null
  diff_max?: number | null
  diff_mean?: number | null
  diff_std?: number | null
  diff_abs_mean?: number | null
  diff_nan_count?: number | null
  error?: string | null
}

export interface ParameterCompareResponse {
  model_id: string
  other_model_id: string
  parameters: ParameterDiff[]
  only_in_model: string[]
  only_in_other: string[]
}

export interface ModelTextResponse {
  model_id: string
  kind: ModelKind
  offset: number
  length: number
  size: number
  truncated: boolean
  text: string
}
