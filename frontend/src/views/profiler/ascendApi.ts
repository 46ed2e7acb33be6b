// Typed helpers over the Ascend endpoints (docs/profiler.md "Ascend"): one rank (step-trace-time,
// communication, memory-record) or every rank (cluster-step-trace, cluster-analysis). Style A addressing.
import type { RequestOptions } from '@/api/client'
import { pget, type ProfTarget } from './profilerApi'

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

function a(t: ProfTarget) {
  return { train_id: t.trainId, profile: t.profile }
}

export const ascend = {
  stepTraceTime: (t: ProfTarget, o?: RequestOptions) =>
    pget<StepTraceTime>('step-trace-time', { ...a(t), device_id: t.deviceId }, o),
  communication: (t: ProfTarget, o?: RequestOptions) =>
    pget<Communication>('communication', { ...a(t), device_id: t.deviceId }, o),
  memoryRecord: (t: ProfTarget, maxPoints = 2000, top = 20, o?: RequestOptions) =>
    pget<MemoryRecord>('memory-record', { ...a(t), device_id: t.deviceId, max_points: maxPoints, top }, o),
  clusterStepTrace: (t: ProfTarget, o?: RequestOptions) => pget<ClusterStepTrace>('cluster-step-trace', a(t), o),
  clusterAnalysis: (t: ProfTarget, o?: RequestOptions) => pget<ClusterAnalysis>('cluster-analysis', a(t), o),
  compare: (t: ProfTarget, base: CompareBase, o?: RequestOptions) =>
    pget<Compare>(
      'compare',
      {
        ...a(t),
        device_id: t.deviceId,
        base_train_id: base.trainId,
        base_profile: base.profile,
        base_device_id: base.deviceId,
      },
      o,
    ),
  advice: (t: ProfTarget, o?: RequestOptions) => pget<Advice>('advice', a(t), o),
  table: (t: ProfTarget, name: AscendTableName, q: TableQuery, o?: RequestOptions) =>
    pget<AscendTable>(name, { ...a(t), device_id: t.deviceId, ...q }, o),
  npuModuleMem: (t: ProfTarget, maxPoints = 1000, o?: RequestOptions) =>
    pget<NpuModuleMem>('npu-module-mem', { ...a(t), device_id: t.deviceId, max_points: maxPoints }, o),
  clusterMatrix: (t: ProfTarget, group: string, op: string, o?: RequestOptions) =>
    pget<ClusterMatrix>('cluster-communication-matrix', { ...a(t), group: group || undefined, op: op || undefined }, o),
}
