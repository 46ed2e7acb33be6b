// Typed helpers over the generic `api.profilerGet/profilerPost` (docs/profiler.md, API.md §10).
// Addressing: style A = `train_id` + `profile` (the profiler sub-dir), style B = `dir` (the job; the
// server picks its last `profiler*` dir). Our additive endpoints accept both.
import { api, ApiError, type Query, type RequestOptions } from '@/api/client'

/** The server's answer to `missing_ok=true` when the view's file is absent (docs/profiler.md). */
interface Absent {
  missing: { error_code: string; error_msg: string }
}
function absent(data: unknown): Absent['missing'] | null {
  const m = data && typeof data === 'object' && !Array.isArray(data) ? (data as Partial<Absent>).missing : undefined
  return m && typeof m.error_code === 'string' ? m : null
}

/** An expected absence (a file this rank has not written): answered 200 `{missing}` thanks to `missing_ok`, so the
 * browser logs no failed request; thrown as this error, which `isMissing` tells from a real failure. */
export class MissingDataError extends ApiError {
  constructor(m: Absent['missing']) {
    super('http', m.error_msg, 200, m.error_code)
    this.name = 'MissingDataError'
  }
}

async function unwrap<T>(answer: Promise<unknown>): Promise<T> {
  const data = await answer
  const m = absent(data)
  if (m) throw new MissingDataError(m)
  return data as T
}

/** GET / POST profile/<path>, asking the server to answer an absent file without an HTTP error. */
export function pget<T>(path: string, q: Query, o?: RequestOptions): Promise<T> {
  return unwrap<T>(api.profilerGet(path, { ...q, missing_ok: true }, o))
}
export function ppost<T>(path: string, q: Query, body: unknown, o?: RequestOptions): Promise<T> {
  return unwrap<T>(api.profilerPost(path, { ...q, missing_ok: true }, body, o))
}

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
  views?: { view: string; has_data: boolean }[]
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

function gpu(t: ProfTarget): { device_type?: string } {
  return t.deviceType === 'gpu' ? { device_type: 'gpu' } : {}
}

function a(t: ProfTarget) {
  return { train_id: t.trainId, profile: t.profile }
}

export const prof = {
  dirs: (trainId: string, o?: RequestOptions) => pget<ProfilerDirs>('dirs', { train_id: trainId }, o),

  devices: (t: ProfTarget, o?: RequestOptions) =>
    pget<{ device_list: string[]; profiler_mode?: string }>('devices', a(t), o),

  overview: (t: ProfTarget, o?: RequestOptions) =>
    pget<Overview>('overview', { ...a(t), device_id: t.deviceId }, o),

  opsSearch: (t: ProfTarget, body: OpsSearchBody, o?: RequestOptions) =>
    ppost<OpsTable>('ops/search', a(t), body, o),

  memoryUsage: (t: ProfTarget, maxPoints = 2000, o?: RequestOptions) =>
    pget<MemoryUsage>('memory-usage', { ...a(t), device_id: t.deviceId, max_points: maxPoints }, o),

  /** Style B only on the server: the job's last `profiler*` dir. */
  timelineSummary: (t: ProfTarget, o?: RequestOptions) =>
    pget<TimelineSummary>('timeline-summary', { dir: t.trainId, device_id: t.deviceId, ...gpu(t) }, o),

  timeline: (t: ProfTarget, w: TimelineWindow, o?: RequestOptions) =>
    pget<TraceEvent[]>('timeline', { dir: t.trainId, device_id: t.deviceId, ...gpu(t), ...w }, o),

  trainingTraceGraph: (t: ProfTarget, o?: RequestOptions) =>
    pget<Record<string, unknown>>('training-trace/graph', { dir: t.trainId, device_id: t.deviceId, type: 0 }, o),

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

/** The server's style-B choice among a job's profiler dirs: last by name, preferring ones with data. */
export function styleBProfile(dirs: ProfilerDirInfo[]): string | null {
  if (!dirs.length) return null
  const sorted = [...dirs].sort((x, y) => (x.profile < y.profile ? -1 : x.profile > y.profile ? 1 : 0))
  const withData = sorted.filter((d) => d.device_list.length)
  return (withData.length ? withData : sorted)[(withData.length ? withData : sorted).length - 1].profile
}

// ---------------------------------------------------------------- formatting

export function fmtUs(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '–'
  const a = Math.abs(us)
  if (a >= 1e6) return `${(us / 1e6).toFixed(3)} s`
  if (a >= 1e3) return `${(us / 1e3).toFixed(3)} ms`
  return `${Number(us.toFixed(3))} µs`
}

export function fmtBytes(b: number | null | undefined): string {
  if (b === null || b === undefined || !Number.isFinite(b)) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = b
  let i = 0
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[i]}`
}
