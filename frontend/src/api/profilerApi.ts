// The profiler's one API module: every profiler tab (MindSpore host CPU/GPU files, the Ascend exports, MindInsight's
// old Ascend/GPU layout) asks the server through here (docs/profiler.md, API.md §10).
//
// Addressing: style A = `train_id` + `profile` (the profiler sub-dir), style B = `dir` (the job; the server picks its
// last `profiler*` dir). Our additive endpoints accept both.
//
// A missing file is answered one way. Every request asks with `missing_ok=true`, so the server answers an absent
// view file 200 `{"missing": {error_code, error_msg}}` (no failed request in the browser's log); a 400 carrying a
// missing/unusable-file code (50546084 ProfilerFileNotFoundError, 50546087 ProfilerRawFileError: an endpoint or
// server that ignores `missing_ok`) is the same thing. Both reject with one typed value, `ProfilerMissing`, which
// `isMissing` tells from a real failure and `loadOutcome` turns into the tabs' `missing` state ("not written").
// Nothing else in the profiler looks at error codes, and no endpoint answers a missing file with `null`.
import { api, ApiError, type Query, type RequestOptions } from '@/api/client'

// ---------------------------------------------------------------- requests and the missing-file answer

/** ProfilerFileNotFoundError (the view's file is absent) and ProfilerRawFileError (present but unusable). */
export const MISSING_CODES: readonly string[] = ['50546084', '50546087']

/** What the server says about an absent file (`{"missing": ...}` with `missing_ok`, or the 400's body). */
export interface MissingInfo {
  error_code: string
  error_msg: string
}

/** A profiler file this rank has not written (or cannot be used): an expected absence, not a failure. Its message is
 * the server's (which file, of which rank, and why it may be absent). */
export class ProfilerMissing extends ApiError {
  readonly missing: MissingInfo
  constructor(m: MissingInfo, status = 200) {
    super('http', m.error_msg, status, m.error_code)
    this.name = 'ProfilerMissing'
    this.missing = m
  }
}

export function isMissing(e: unknown): e is ProfilerMissing {
  return e instanceof ProfilerMissing
}

/** The state a view shows for a failed load: `missing` (not written) or `error` (anything else). */
export function loadOutcome(e: unknown): 'missing' | 'error' {
  return isMissing(e) ? 'missing' : 'error'
}

/** The `{missing}` member of a 200 answer, when the answer is one. */
export function missingOf(data: unknown): MissingInfo | null {
  const m = data && typeof data === 'object' && !Array.isArray(data) ? (data as { missing?: unknown }).missing : undefined
  return m && typeof m === 'object' && typeof (m as MissingInfo).error_code === 'string' ? (m as MissingInfo) : null
}

/** The one request helper: GET / POST profile/<path> with `missing_ok`; a missing file rejects with ProfilerMissing. */
export async function profRequest<T>(method: 'GET' | 'POST', path: string, q: Query, body?: unknown, o?: RequestOptions): Promise<T> {
  const query = { ...q, missing_ok: true }
  let data: unknown
  try {
    data = method === 'GET' ? await api.profilerGet(path, query, o) : await api.profilerPost(path, query, body, o)
  } catch (e) {
    if (e instanceof ApiError && !(e instanceof ProfilerMissing) && e.kind === 'http' && MISSING_CODES.includes(e.code)) {
      throw new ProfilerMissing({ error_code: e.code, error_msg: e.message }, e.status)
    }
    throw e
  }
  const m = missingOf(data)
  if (m) throw new ProfilerMissing(m)
  return data as T
}

const pget = <T>(path: string, q: Query, o?: RequestOptions) => profRequest<T>('GET', path, q, undefined, o)
const ppost = <T>(path: string, q: Query, body: unknown, o?: RequestOptions) => profRequest<T>('POST', path, q, body, o)

// ---------------------------------------------------------------- shared types (every format)

export interface ProfilerDirInfo {
  profile: string
  layout: 'legacy' | 'ms2' | string
  device_list: string[]
  device_type: string
  profiler_mode: string
  /** who wrote it: `mindspore`, `pytorch` (torch_npu), or null when the files do not say */
  framework?: 'mindspore' | 'pytorch' | null
  /** its pages in order (the server's profile_views.py decides them from what the profile holds); `has_data` false:
   * its first rank lacks what the page draws (the page says what and how to get it) */
  /** the profile's pages in order (its layout adapter decides them), each with whether it has data */
  views: { view: string; has_data: boolean }[]
}

export interface ProfilerDirs {
  train_id: string
  profilers: ProfilerDirInfo[]
}

export interface StepInfo {
  step: number
  start_us: number
  duration_us: number
  compute_us: number
  interval_us: number
}

export interface TopOpType {
  op_type: string
  total_time_us: number
  percent: number
  occurrences: number
}

export interface Overview {
  device_id: string
  device_type: string
  layout: string
  profiler_mode: string
  total_time_us: number
  op_total_time_us: number
  step_count: number
  avg_step_time_us: number
  median_step_time_us: number
  steps: StepInfo[]
  top_op_types: TopOpType[]
  memory: { peak_allocated_bytes?: number; peak_reserved_bytes?: number; peak_active_bytes?: number } | null
  /** `args`: the values the sentence names (profilerLabels.hintText words it in the UI's language) */
  hints: { code: string; message: string; args?: Record<string, unknown> }[]
  /** a part that could not be read (the Ascend overview: steps, op types, memory), named by `part` */
  problems?: { part?: string; file?: string; message: string }[]
}

export interface OpsSearchBody {
  op_type: string
  device_id: string
  filter_condition?: Record<string, Record<string, string[]>>
  sort_condition?: { name: string; type: 'ascending' | 'descending' }
  group_condition?: { limit: number; offset: number }
}

export interface OpsTable {
  col_name: string[]
  object: (string | number | null)[][]
  size: number
  /** Ascend kernel tables: the profile's start (the rank's first kernel), µs since the epoch */
  time_origin_us?: number | null
  /** old layout: files the answer could not (fully) use */
  problems?: Problem[]
}

export interface MemoryUsage {
  device_id: string
  col_name: string[]
  points: [number, number, number, number][]
  count: number
  peak_allocated_bytes: number
  peak_reserved_bytes: number
  peak_active_bytes: number
  start_ts_ns: number
}

export interface TimelineSummary {
  max_scope_name_num: number
  num_of_ops?: number
  op_exe_times?: number
  num_of_streams?: number
  total_time?: number
  num_of_events?: number
  first_ts_us?: number
  last_ts_us?: number
  /** timed events per process (ms2 layout) */
  processes?: { pid: number | string; name: string | null; events: number }[]
}

export interface TraceEvent {
  name: string
  ph: string
  pid: number | string
  tid: number | string
  ts?: number
  dur?: number
  cat?: string
  args?: Record<string, unknown>
}

export interface TimelineWindow {
  start_us?: number
  end_us?: number
  min_dur_us?: number
  max_events?: number
  /** comma-separated process ids whose events to keep */
  pids?: string
}

/** Where a profiler lives: the job and (style A) the profiler sub-dir name. */
export interface ProfTarget {
  trainId: string
  profile: string
  deviceId: string
  /** `gpu` for a GPU profile of MindInsight's layout: its timeline files are `gpu_*` (the server's default is ascend) */
  deviceType?: string
}

// ---------------------------------------------------------------- Ascend types (docs/profiler.md "Ascend")

/** A file the backend could not (fully) use: shown beside the view, never silently dropped. */
export interface Problem {
  file: string
  message: string
  rank_id?: number
}

export interface StepTime {
  step: number | string | null
  computing_us: number
  communication_not_overlapped_us: number
  overlapped_us: number | null
  communication_us: number | null
  free_us: number
  stage_us: number | null
  bubble_us: number | null
  communication_not_overlapped_exclude_receive_us: number | null
  preparing_us: number | null
}

export interface StepTraceTime {
  steps: StepTime[]
  problems?: Problem[]
}

export interface Bandwidth {
  size_mb: number | null
  time_ms: number | null
  gbps: number | null
  large_packet_ratio?: number | null
  packets?: number | null
}

export interface CommOp {
  name: string
  group: string
  step: number | string
  type?: string
  elapse_time_ms: number | null
  transit_time_ms: number | null
  wait_time_ms: number | null
  synchronization_time_ms: number | null
  idle_time_ms: number | null
  wait_time_ratio: number | null
  synchronization_time_ratio: number | null
  bandwidth: Record<string, Bandwidth>
}

export interface MatrixCell {
  op: string
  src: number
  dst: number
  transport: string | null
  size_mb: number | null
  time_ms: number | null
  gbps: number | null
  group?: string
  step?: number | string
}

export interface Communication {
  ops: CommOp[]
  matrix: MatrixCell[]
  totals?: CommOp[]
  problems?: Problem[]
}

/** [ts_us, allocated_mb, reserved_mb, active_mb]; null = the component has no such figure */
export type MemPoint = [number, number | null, number | null, number | null]

export interface OperatorAllocation {
  name: string
  size_kb: number
  allocation_time_us: number | null
  release_time_us: number | null
  duration_us: number | null
}

export interface MemoryRecord {
  peak_reserved_mb: number | null
  peak_allocated_mb: number | null
  series: Record<string, MemPoint[]>
  top_operators: OperatorAllocation[]
  points?: Record<string, number>
  operator_count?: number
  problems?: Problem[]
}

export type RankStepTime = Omit<StepTime, 'step'> & { rank_id: number; step_count?: number }

export interface SlowRank {
  rank_id: number
  /** the phase furthest above the peers' median */
  phase: string
  /** (phase value − peers' median) / peers' median; null when that median is 0 */
  deviation: number | null
  excess_us?: number
  /** (step time − peers' median step time) / that median */
  step_deviation?: number
  peer_group?: number
}

export interface ClusterStepTrace {
  ranks: RankStepTime[]
  slow_ranks: SlowRank[]
  peers?: { source: string; groups: number[][] }
  rule?: { phases: string[]; tolerance: number; peers: string }
  problems?: Problem[]
}

export interface ClusterStepRow extends Omit<StepTime, 'step'> {
  step: number | string | null
  type: string
  index: number | string
}

export interface ClusterAnalysis {
  available: boolean
  step_trace?: ClusterStepRow[]
  communication?: (CommOp & { rank_id: number | string })[]
  matrix?: MatrixCell[]
  communication_group?: unknown
  problems?: Problem[]
}

/** profile/compare: a rank against a base rank */
export interface CompareOpType {
  op_type: string
  count: number
  total_us: number
  base_count: number
  base_total_us: number
  diff_us: number
}
export interface CompareValue {
  value: number | null
  base: number | null
  diff: number | null
}
export interface Compare {
  op_types: CompareOpType[]
  steps: Record<string, CompareValue>
  problems?: (Partial<Problem> & { message: string; side?: string })[]
}
export interface CompareBase {
  trainId: string
  profile: string
  deviceId: string
}

/** profile/advice */
export type Severity = 'high' | 'medium' | 'low'
export interface Finding {
  id: string
  severity: Severity
  title: string
  detail: string
  ranks: number[]
  view: string
  evidence: Record<string, unknown>
  rule: string
  threshold: Record<string, unknown>
}
export interface AdviceRule {
  id: string
  title: string
  status: 'found' | 'ok' | 'no_data'
  ranks_checked: number[]
  skipped_ranks?: number[]
  message?: string
}
export interface Advice {
  findings: Finding[]
  rules: AdviceRule[]
  ranks: number[]
  max_kernel_ranks?: number
  problems?: (Partial<Problem> & { message: string; rule?: string })[]
}

/** operator-details / api-statistic: an ops/search-shaped table */
export interface AscendTable {
  col_name: string[]
  object: (string | number | null)[][]
  size: number
  /** what was read: the file, or `<table> in <database>` */
  source?: string
  problems?: Problem[]
}
export type AscendTableName = 'operator-details' | 'api-statistic'
export interface TableQuery {
  search?: string
  sort_name?: string
  sort_type?: 'ascending' | 'descending'
  limit: number
  offset: number
}

export interface NpuModuleMem {
  components: { component: string; peak_reserved_mb: number; points: number; series: [number, number][] }[]
  /** what was read: npu_module_mem.csv, or `NPU_MODULE_MEM in <database>` */
  source?: string
  problems?: Problem[]
}

export interface ClusterMatrix {
  ranks_read: number[]
  groups: { group: string; ranks: number[]; ops: string[] }[]
  group: string | null
  op: string | null
  cells: MatrixCell[]
  problems?: Problem[]
}

// ---------------------------------------------------------------- old-layout types (MindSpore <= 2.2; MindInsight 2.3.1's shapes)

/** One point of the training trace graph; `{}` when MindInsight found it invalid (negative start/duration). */
export interface TracePoint {
  name?: string
  start?: number
  duration?: number
}

export interface StepSummary {
  total_time: number
  iteration_interval: number
  iteration_interval_percent: string
  fp_and_bp?: number
  fp_and_bp_percent?: string
  tail?: number
  tail_percent?: string
  fp?: number
  fp_percent?: string
  total_steps: number
}

export interface TraceGraph {
  size?: number
  training_trace_graph?: TracePoint[][]
  summary?: StepSummary
  point_info?: Record<string, string>
  is_heterogeneous?: boolean
}

export interface TargetTime {
  size: number
  info: Record<string, number[]>
  summary: StepSummary
}

export interface QueueInfo {
  size?: number
  info?: { queue: number[] }
  summary?: { queue_summary: { empty_queue: number; full_queue?: number } }
}

export interface ProcessSummary {
  data_process?: { status: string }
  device_queue_warning?: { status: string }
  data_transmission?: { status: string }
  get_next?: { status: string }
  fpbp?: { status: string }
  device_queue_info?: { summary: { empty_batch_count: number; full_batch_count: number; total_batch: number } }
  get_next_queue_info?: { summary: { empty_batch_count: number; total_batch: number } }
}

export interface Averaged {
  metrics: number[]
  avg_value: number
}

export interface CpuUtilization {
  sampling_interval: number
  step_info: (string | number)[]
  step_total_num: number
  cpu_processor_num: number
  device_info: Record<string, Averaged>
  process_info: Record<string, Averaged>
  op_info: { op_list: { op_id: number; num_workers: number; metrics: Record<string, Averaged> }[] }
}

export interface FlopsSummary {
  FLOPs?: number
  FLOPS?: number
  FLOPS_Utilization?: number
}

export interface FlopsScope {
  data?: { nodes: { name: string }[]; links: { source: string; target: string; value: number }[] }
  max_scope_num?: number
}

export interface OldClusterStepTrace {
  total_step_num: string | number
  stage_num: number
  'parallel-mode': string
  size: number
  info: { rank_id: number; profiler_dir: string; step_trace_info?: number[]; step_bottleneck_info?: number[] }[]
  is_heterogeneous?: boolean
}

export interface ClusterFlops {
  rank_id: number
  FLOPs: number
  FLOPS?: number
  FLOPS_Utilization?: number
  FLOPs_norm: number
}

/** link info: {"src-dst": {"SDMA"|"RDMA"|...: [cost ms, size, bandwidth]}} */
export type LinkInfo = Record<string, Record<string, [number, number, number]>>

export interface ClusterCommunication {
  total_step_num: number
  size: number
  communication: { rank_id: number; communication_info: [number, number, LinkInfo, Record<string, unknown>?] | [] }[]
}

export type Proposals = Record<string, unknown>

/** profile/columns: table -> its columns (units) */
export interface ColumnsAnswer {
  tables: Record<string, { name: string; unit: string | null; timestamp?: boolean }[]>
}

// ---------------------------------------------------------------- endpoints

function a(t: ProfTarget) {
  return { train_id: t.trainId, profile: t.profile }
}
function rank(t: ProfTarget) {
  return { ...a(t), device_id: t.deviceId }
}
/** style B (`dir` = the job) for one rank */
function styleB(t: ProfTarget) {
  return { dir: t.trainId, device_id: t.deviceId }
}
function gpu(t: ProfTarget): { device_type?: string } {
  return t.deviceType === 'gpu' ? { device_type: 'gpu' } : {}
}

/** Every format: the profiler dirs of a job, the column definitions, and MindSpore's host CPU/GPU views. */
export const prof = {
  dirs: (trainId: string, o?: RequestOptions) => pget<ProfilerDirs>('dirs', { train_id: trainId }, o),

  /** the server's column definitions (they describe the server, not a run) */
  columns: (o?: RequestOptions) => pget<ColumnsAnswer>('columns', {}, o),

  overview: (t: ProfTarget, o?: RequestOptions) => pget<Overview>('overview', rank(t), o),

  /** ops/search: every layout's operator tables (MindInsight's `op_type` names the table) */
  opsSearch: (t: ProfTarget, body: OpsSearchBody, o?: RequestOptions) => ppost<OpsTable>('ops/search', a(t), body, o),

  memoryUsage: (t: ProfTarget, maxPoints = 2000, o?: RequestOptions) =>
    pget<MemoryUsage>('memory-usage', { ...rank(t), max_points: maxPoints }, o),

  /** Style B only on the server: the job's last `profiler*` dir. */
  timelineSummary: (t: ProfTarget, o?: RequestOptions) =>
    pget<TimelineSummary>('timeline-summary', { ...styleB(t), ...gpu(t) }, o),

  timeline: (t: ProfTarget, w: TimelineWindow, o?: RequestOptions) =>
    pget<TraceEvent[]>('timeline', { ...styleB(t), ...gpu(t), ...w }, o),

  pipelineOps: (t: ProfTarget, o?: RequestOptions) =>
    ppost<OpsTable>(
      'minddata-pipeline/op-queue',
      a(t),
      {
        device_id: t.deviceId,
        filter_condition: {},
        sort_condition: { name: 'op_id', type: 'ascending' },
        group_condition: { limit: 100, offset: 0 },
      },
      o,
    ),
}

/** The Ascend views: one rank (step-trace-time, communication, memory-record, tables) or every rank (cluster-*). */
export const ascend = {
  stepTraceTime: (t: ProfTarget, o?: RequestOptions) => pget<StepTraceTime>('step-trace-time', rank(t), o),
  communication: (t: ProfTarget, o?: RequestOptions) => pget<Communication>('communication', rank(t), o),
  memoryRecord: (t: ProfTarget, maxPoints = 2000, top = 20, o?: RequestOptions) =>
    pget<MemoryRecord>('memory-record', { ...rank(t), max_points: maxPoints, top }, o),
  clusterStepTrace: (t: ProfTarget, o?: RequestOptions) => pget<ClusterStepTrace>('cluster-step-trace', a(t), o),
  clusterAnalysis: (t: ProfTarget, o?: RequestOptions) => pget<ClusterAnalysis>('cluster-analysis', a(t), o),
  compare: (t: ProfTarget, base: CompareBase, o?: RequestOptions) =>
    pget<Compare>(
      'compare',
      { ...rank(t), base_train_id: base.trainId, base_profile: base.profile, base_device_id: base.deviceId },
      o,
    ),
  advice: (t: ProfTarget, o?: RequestOptions) => pget<Advice>('advice', a(t), o),
  table: (t: ProfTarget, name: AscendTableName, q: TableQuery, o?: RequestOptions) =>
    pget<AscendTable>(name, { ...rank(t), ...q }, o),
  npuModuleMem: (t: ProfTarget, maxPoints = 1000, o?: RequestOptions) =>
    pget<NpuModuleMem>('npu-module-mem', { ...rank(t), max_points: maxPoints }, o),
  clusterMatrix: (t: ProfTarget, group: string, op: string, o?: RequestOptions) =>
    pget<ClusterMatrix>('cluster-communication-matrix', { ...a(t), group: group || undefined, op: op || undefined }, o),
}

/** MindInsight's own endpoints for the old Ascend/GPU layout (MindSpore <= 2.2; docs/profiler.md "MindInsight's old
 * Ascend/GPU layout"); its operators are `prof.opsSearch`. */
export const legacy = {
  traceGraph: (t: ProfTarget, step: number, o?: RequestOptions) =>
    pget<TraceGraph>('training-trace/graph', { ...styleB(t), type: step }, o),

  targetTime: (t: ProfTarget, proc: string, o?: RequestOptions) =>
    pget<TargetTime>('training-trace/target-time-info', { ...styleB(t), type: proc }, o),

  propose: (t: ProfTarget, o?: RequestOptions) => pget<Proposals>('summary/propose', rank(t), o),

  processSummary: (t: ProfTarget, o?: RequestOptions) => pget<ProcessSummary>('process_summary', rank(t), o),

  queueInfo: (t: ProfTarget, kind: 'get_next' | 'device_queue', o?: RequestOptions) =>
    pget<QueueInfo>('queue_info', { ...rank(t), type: kind }, o),

  cpuUtilization: (t: ProfTarget, o?: RequestOptions) =>
    ppost<CpuUtilization>('minddata-cpu-utilization-summary', a(t), { device_id: t.deviceId }, o),

  flopsSummary: (t: ProfTarget, o?: RequestOptions) =>
    pget<FlopsSummary>('flops-summary', { train_id: t.trainId, device_id: t.deviceId }, o),

  flopsScope: (t: ProfTarget, o?: RequestOptions) =>
    pget<FlopsScope>('flops-scope', { train_id: t.trainId, device_id: t.deviceId }, o),

  clusterStepTrace: (t: ProfTarget, step: number, stage: number, o?: RequestOptions) =>
    ppost<OldClusterStepTrace>('cluster-step-trace-summary', { train_id: t.trainId },
      { filter_condition: { step_id: step, stage_id: stage } }, o),

  clusterFlops: (t: ProfTarget, o?: RequestOptions) => pget<ClusterFlops[]>('cluster-flops', { train_id: t.trainId }, o),

  clusterCommunication: (t: ProfTarget, step: number, o?: RequestOptions) =>
    ppost<ClusterCommunication>('search-cluster-communication', { train_id: t.trainId },
      { filter_condition: { step_id: step } }, o),

  clusterPropose: (t: ProfTarget, o?: RequestOptions) =>
    pget<Proposals>('summary/cluster-propose', { train_id: t.trainId }, o),
}

/** The server's style-B choice among a job's profiler dirs: last by name, preferring ones with data. */
export function styleBProfile(dirs: ProfilerDirInfo[]): string | null {
  if (!dirs.length) return null
  const sorted = [...dirs].sort((x, y) => (x.profile < y.profile ? -1 : x.profile > y.profile ? 1 : 0))
  const withData = sorted.filter((d) => d.device_list.length)
  return (withData.length ? withData : sorted)[(withData.length ? withData : sorted).length - 1].profile
}
