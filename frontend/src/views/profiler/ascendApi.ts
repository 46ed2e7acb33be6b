// Typed helpers over the Ascend endpoints (docs/profiler.md "Ascend"): one rank (step-trace-time,
// communication, memory-record) or every rank (cluster-step-trace, cluster-analysis). Style A addressing.
import { api, type RequestOptions } from '@/api/client'
import type { ProfTarget } from './profilerApi'

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
  phase: string
  deviation: number
}

export interface ClusterStepTrace {
  ranks: RankStepTime[]
  slow_ranks: SlowRank[]
  rule?: { phases: string[]; imbalance: number; deviation: number }
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

function a(t: ProfTarget) {
  return { train_id: t.trainId, profile: t.profile }
}

export const ascend = {
  stepTraceTime: (t: ProfTarget, o?: RequestOptions) =>
    api.profilerGet<StepTraceTime>('step-trace-time', { ...a(t), device_id: t.deviceId }, o),
  communication: (t: ProfTarget, o?: RequestOptions) =>
    api.profilerGet<Communication>('communication', { ...a(t), device_id: t.deviceId }, o),
  memoryRecord: (t: ProfTarget, maxPoints = 2000, top = 20, o?: RequestOptions) =>
    api.profilerGet<MemoryRecord>('memory-record', { ...a(t), device_id: t.deviceId, max_points: maxPoints, top }, o),
  clusterStepTrace: (t: ProfTarget, o?: RequestOptions) => api.profilerGet<ClusterStepTrace>('cluster-step-trace', a(t), o),
  clusterAnalysis: (t: ProfTarget, o?: RequestOptions) => api.profilerGet<ClusterAnalysis>('cluster-analysis', a(t), o),
}
