// Typed shapes of the MindInsight 2.3.1 REST API (see shared/reference/mindinsight/API.md).
// Only the fields the UI reads are required; everything else is optional so that a
// server that adds fields stays compatible.

export type PluginName =
  | 'scalar'
  | 'image'
  | 'histogram'
  | 'tensor'
  | 'graph'
  | 'optimized_graph'
  | 'loss_landscape'

export const PLUGIN_NAMES: PluginName[] = [
  'scalar',
  'image',
  'histogram',
  'tensor',
  'graph',
  'optimized_graph',
  'loss_landscape',
]

export type PluginTags = Record<PluginName, string[]>

export type CacheStatus = 'NOT_IN_CACHE' | 'CACHING' | 'CACHED'
export type LoadStatus = 'loaded' | 'loading' | 'init'

export interface TrainJob {
  train_id: string
  relative_path: string
  create_time: string
  update_time: string
  cache_status: CacheStatus
  is_integrity: boolean
  summary_files: number
  lineage_files: number
  graph_files: number
  profiler_dir: string | null
  profiler_type: string
  dump_dir: string | null
  graph_mode?: string
  plugins: PluginTags
  /** mindinsight-clone: present only when some file of the run has problems (is_integrity false). */
  problems?: RunProblem[]
  /** mindinsight-clone: present only while the run is CACHING. */
  load_progress?: { bytes_read: number; bytes_total: number }
  /** mindinsight-clone, with `data_version=true`: changes whenever the run's cached data changes */
  data_version?: string
  /** mindinsight-clone: present only for a `rank_<n>` run with rank siblings (issue 13). */
  group?: RunGroup
}

/** The rank group of a run: `id` is the parent's train_id, `size` the number of listed ranks. */
export interface RunGroup {
  id: string
  rank: number
  size: number
}

export interface RunProblem {
  file: string
  offset: number
  kind: string
  message: string
}

export interface TrainJobsResponse {
  load_status: LoadStatus
  name: string
  total: number
  train_jobs: TrainJob[]
  /** mindinsight-clone: present only when --max-run-count leaves runs out of the listing. */
  omitted_runs?: { count: number; found: number; listed: number; setting: string }
  /** mindinsight-clone: present only when a bounded directory listing stopped early. */
  scan_truncated?: boolean
}

export interface CacheResult {
  cache_result: { train_id: string; cache_status: CacheStatus }[]
}

export interface UiConfig {
  enable_debugger: boolean
  /** Added by mindinsight-clone: seconds between server rescans (0 = load once). */
  reload_interval?: number
}

/** mindinsight-clone: `scalar/metadata?downsample=N` adds this beside `metadatas` (docs/api.md). */
export interface ScalarEnvelopeBucket {
  step_start: number
  step_end: number
  min: number | null
  max: number | null
  count: number
}

export interface ScalarSummary {
  count: number
  nan_count: number
  min: number | null
  max: number | null
  last_step: number | null
  last_value: number | null
  envelope: ScalarEnvelopeBucket[]
}

export interface ScalarPoint {
  step: number
  /** null stands for NaN / +-Inf */
  value: number | null
  wall_time: number
}

/** `window` of scalar/metadata?start_step=&end_step=&points= (mindinsight-clone). */
export interface ScalarWindowInfo {
  start_step: number | null
  end_step: number | null
  points: number
  /** real points of the series inside the window (before the reduction to `points`) */
  total: number
  /** false: answered from the kept sample (no full-resolution store for this run) */
  exact: boolean
  /** only when not exact: 'disk_full' | 'write_failed' | 'no_store' */
  reason?: string
  /** only when not exact: the error behind `reason` */
  detail?: string
}

export interface ScalarSeries {
  train_id: string
  tag: string
  values: ScalarPoint[]
}

export interface ImageMeta {
  step: number
  wall_time: number
  width: number
  height: number
}

/** [left edge, width, count] */
export type Bucket = [number, number, number]

export interface HistogramStep {
  step: number
  wall_time: number
  buckets: Bucket[]
  /** mindinsight-clone: present only on a step with NaN / ±Inf values (docs/api.md). */
  nan_count?: number
  pos_inf_count?: number
  neg_inf_count?: number
}

export interface HistogramsResponse {
  train_id: string
  tag: string
  histograms: HistogramStep[]
}

export interface TensorStatistics {
  max: number
  min: number
  avg: number
  count: number
  nan_count: number
  neg_inf_count: number
  pos_inf_count: number
  overall_max: number
  overall_min: number
  overall_avg?: number
  overall_count?: number
  overall_nan_count?: number
  overall_neg_inf_count?: number
  overall_pos_inf_count?: number
}

/** A tensor cell: a number, or "NAN" / "INF" / "-INF". */
export type TensorCell = number | string
export type TensorData = TensorCell | TensorData[]

export interface TensorValue {
  dims: number[]
  data_type: string
  statistics?: TensorStatistics | null
  histogram_buckets?: Bucket[]
  data?: TensorData
}

export interface TensorStep {
  step: number
  wall_time: number
  value: TensorValue
}

export interface TensorsResponse {
  tensors: { train_id: string; tag: string; values: TensorStep[] }[]
}

export type TensorDetail = 'stats' | 'histogram' | 'data'

export interface LandscapeInterval {
  id: string
  value: number[]
}

export interface LandscapeMetadata {
  decomposition?: string
  unit?: string
  step_per_epoch?: number
  network?: string
  optimizer?: string
  learning_rate?: string
  loss?: string
  metric?: Record<string, number>
}

export interface Landscape {
  train_id: string
  points?: { x: number[]; y: number[]; z: number[][] }
  path?: { x: number[]; y: number[]; z: number[]; intervals: number[] }
  convergence_point?: number[]
  metadata?: LandscapeMetadata
  error_code?: string
  error_msg?: string
}

export interface DatasetGraphNode {
  op_type?: string
  children?: DatasetGraphNode[]
  [param: string]: unknown
}

export interface GraphNode {
  name: string
  type: string
  attr?: Record<string, string>
  input?: Record<string, unknown>
  output?: Record<string, unknown>
  subnode_count?: number
  independent_layout?: boolean
  is_dynamic_shape_node?: boolean
  [k: string]: unknown
}

export interface LineageObject {
  summary_dir: string
  added_info?: { tag?: number; remark?: string }
  model_lineage?: Record<string, unknown>
  dataset_graph?: DatasetGraphNode
}

export interface LineageResponse {
  count: number
  customized: Record<string, { label: string; required: boolean; type: string }>
  object: LineageObject[]
}

export interface ApiErrorBody {
  error_code: string
  error_msg: string
}
