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

/** TensorBoard kinds the server lists in `plugins` only when a run has them (docs/api.md, "TensorBoard kinds"). */
export type TbKind = 'text' | 'pr_curve' | 'audio' | 'embedding' | 'mesh' | 'custom_scalars' | 'hparams'
export const TB_KINDS: TbKind[] = ['text', 'pr_curve', 'audio', 'embedding', 'mesh', 'custom_scalars', 'hparams']

export type PluginTags = Record<PluginName, string[]> & Partial<Record<TbKind, string[]>>

/** The additive fields of a `plugins` answer (and of a `train-jobs` item), present only when there are some. */
export interface RunExtras {
  /** add_scalars groups: main tag -> its keys (each key's series is the scalar tag `<main>/<key>/scalar`) */
  scalar_groups?: Record<string, string[]>
  /** scalar tag -> its `vs samples` twin (same metric, step = consumed samples) */
  samples_twins?: Record<string, string>
  /** the add_hparams session runs below this run */
  hparams_sessions?: string[]
  /** mindinsight-clone, with `tag_limit`: each plugin's full number of tags (its list holds at most tag_limit) */
  tag_counts?: Partial<Record<string, number>>
}

export interface PluginsResponse extends RunExtras {
  plugins: PluginTags
}

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
  /** mindinsight-clone: the run's text tags, only when its event files hold text summaries. */
  text_tags?: string[]
  /** mindinsight-clone: VisualDL's LogWriter(display_name=...), when the run's logs name one (once cached). */
  display_name?: string
  scalar_groups?: RunExtras['scalar_groups']
  samples_twins?: RunExtras['samples_twins']
  hparams_sessions?: string[]
  /** mindinsight-clone: tags the tag limits (--max-tags-per-run, ...) dropped, only when some were. */
  dropped_tags?: number
  /** mindinsight-clone, with `tag_limit`: each plugin's full number of tags (`plugins` holds at most tag_limit) */
  tag_counts?: RunExtras['tag_counts']
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

// ---------------------------------------------------------------- TensorBoard kinds (docs/api.md)
export interface TextItem {
  step: number
  wall_time: number
  value: string
  /** cut on ingest by --text-max-chars; `length` = characters as written */
  truncated?: boolean
  length?: number
}

export interface TextLatestItem extends TextItem {
  tag: string
  /** kept steps of the tag */
  steps: number
  /** cut to 20,000 characters in `text/latest` only: `text?tag=` has it whole */
  preview?: boolean
}

export interface TextCompareKey {
  key: string
  values: Record<string, string | null>
  differs: boolean
  /** train_id -> why its value did not parse as a Python literal (compared whole) */
  errors?: Record<string, string>
  /** train_ids whose value was cut by --text-max-chars */
  truncated?: string[]
}

export interface TextCompareResponse {
  train_ids: string[]
  differing: number
  keys: TextCompareKey[]
  /** The server's parse budget ran out: some configs were compared as whole texts this time; ask again. */
  incomplete?: boolean
}

export interface PrCurve {
  step: number
  wall_time: number
  thresholds: number[]
  tp: number[]
  fp: number[]
  tn: number[]
  fn: number[]
  precision: number[]
  recall: number[]
  /** A VisualDL add_roc_curve step: its tpr / fpr rows as VisualDL stored them (the page draws from the counts). */
  kind?: 'roc'
  tpr?: number[]
  fpr?: number[]
}

export interface HparamsSession {
  train_id: string
  hparams: Record<string, number | string | boolean>
  metrics: Record<string, number>
  status: string
  hparam_types?: Record<string, string>
  group_name?: string
}

export interface HparamsResponse {
  sessions: HparamsSession[]
  hparams: string[]
  metrics: string[]
  not_cached?: string[]
}

export interface HparamsSessionsResponse extends HparamsResponse {
  object: (LineageObject & { source?: string })[]
  importance: Record<string, unknown>
}

export interface AudioMeta {
  step: number
  wall_time: number
  sample_rate: number
  length_frames: number
  content_type: string
  num_channels?: number
  bytes?: number
}

export interface EmbeddingInfo {
  tag: string
  tensor_name?: string
  step?: number
  shape: number[]
  metadata_columns: string[]
  sprite?: { single_image_dim: [number, number] } | null
  /** why this embedding cannot be served (a refused path, an unreadable TSV) */
  error?: string
}

export interface EmbeddingData {
  tag: string
  shape: number[]
  /** one row per point; null for NaN / ±Inf */
  values: (number | null)[][]
  metadata: { columns: string[]; rows: string[][] }
  sprite?: { single_image_dim: [number, number] } | null
  truncated?: { sent_points: number; setting: string }
  warning?: string
}

export interface ScalarsGroupResponse {
  tag: string
  series: { name: string; tag: string; metadatas: ScalarPoint[] }[]
}

/** mindinsight-clone `scalars/heatmap` (docs/scalar-aggregate.md): tags (natural order) x step columns;
 * `values[i][j]` the largest-|value| point of tag i in column j, null when none or non-finite
 * (`nonfinite[i][j]` true: a NaN or ±Inf point in it). */
export interface ScalarHeatmapResponse {
  train_id: string
  tags: string[]
  /** a column's first step */
  steps: number[]
  values: (number | null)[][]
  nonfinite: boolean[][]
  /** per cell: 0 finite or empty, 1 NaN, 2 +Inf, 3 -Inf (servers before it: absent) */
  nonfinite_kind?: number[][]
  has_nonfinite: boolean
  matched: number
  truncated: boolean
}

export interface CustomScalarsChart {
  title: string
  multiline?: { tags: string[] }
  margin?: { series: { value: string; lower: string; upper: string }[] }
  /** margin charts: the series' tags (`<tag>/scalar`) the run has */
  matched?: string[]
}

export interface CustomScalarsResponse {
  tags: string[]
  categories: { title: string; closed: boolean; charts: CustomScalarsChart[] }[]
}

export interface MeshStep {
  step: number
  wall_time: number
  vertices: number[][] | null
  faces: number[][] | null
  colors: number[][] | null
}

export interface MeshResponse {
  name: string
  components: { vertices?: string; faces?: string; colors?: string }
  config: Record<string, unknown> | null
  config_error?: string
  meshes: MeshStep[]
}
