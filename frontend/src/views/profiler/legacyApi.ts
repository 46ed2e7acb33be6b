// Typed helpers over MindInsight's own endpoints for the old Ascend/GPU layout (MindSpore <= 2.2; docs/profiler.md
// "MindInsight's old Ascend/GPU layout"): the answers are MindInsight 2.3.1's shapes.
import type { RequestOptions } from '@/api/client'
import { pget, ppost, type OpsSearchBody, type OpsTable, type ProfTarget } from './profilerApi'
import type { Problem } from './ascendApi'

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

export interface OldOpsTable extends OpsTable {
  problems?: Problem[]
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

export interface ClusterStepTrace {
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

export interface ClusterLinks {
  /** [src-dst, link type, cost ms, size, bandwidth] */
  cluster_link_info: [string, string, number, number, number][]
  size: number
}

export type Proposals = Record<string, unknown>

function a(t: ProfTarget) {
  return { train_id: t.trainId, profile: t.profile }
}

export const legacy = {
  ops: (t: ProfTarget, body: OpsSearchBody, o?: RequestOptions) =>
    ppost<OldOpsTable>('ops/search', a(t), body, o),

  traceGraph: (t: ProfTarget, step: number, o?: RequestOptions) =>
    pget<TraceGraph>('training-trace/graph', { dir: t.trainId, device_id: t.deviceId, type: step }, o),

  targetTime: (t: ProfTarget, proc: string, o?: RequestOptions) =>
    pget<TargetTime>('training-trace/target-time-info', { dir: t.trainId, device_id: t.deviceId, type: proc }, o),

  propose: (t: ProfTarget, o?: RequestOptions) =>
    pget<Proposals>('summary/propose', { ...a(t), device_id: t.deviceId }, o),

  processSummary: (t: ProfTarget, o?: RequestOptions) =>
    pget<ProcessSummary>('process_summary', { ...a(t), device_id: t.deviceId }, o),

  queueInfo: (t: ProfTarget, kind: 'get_next' | 'device_queue', o?: RequestOptions) =>
    pget<QueueInfo>('queue_info', { ...a(t), device_id: t.deviceId, type: kind }, o),

  cpuUtilization: (t: ProfTarget, o?: RequestOptions) =>
    ppost<CpuUtilization>('minddata-cpu-utilization-summary', a(t), { device_id: t.deviceId }, o),

  flopsSummary: (t: ProfTarget, o?: RequestOptions) =>
    pget<FlopsSummary>('flops-summary', { train_id: t.trainId, device_id: t.deviceId }, o),

  flopsScope: (t: ProfTarget, o?: RequestOptions) =>
    pget<FlopsScope>('flops-scope', { train_id: t.trainId, device_id: t.deviceId }, o),

  clusterStepTrace: (t: ProfTarget, step: number, stage: number, o?: RequestOptions) =>
    ppost<ClusterStepTrace>('cluster-step-trace-summary', { train_id: t.trainId },
      { filter_condition: { step_id: step, stage_id: stage } }, o),

  clusterFlops: (t: ProfTarget, o?: RequestOptions) =>
    pget<ClusterFlops[]>('cluster-flops', { train_id: t.trainId }, o),

  clusterCommunication: (t: ProfTarget, step: number, o?: RequestOptions) =>
    ppost<ClusterCommunication>('search-cluster-communication', { train_id: t.trainId },
      { filter_condition: { step_id: step } }, o),

  clusterLinks: (t: ProfTarget, step: number, o?: RequestOptions) =>
    ppost<ClusterLinks>('search-cluster-link', { train_id: t.trainId },
      { filter_condition: { step_id: step } }, o),

  clusterPropose: (t: ProfTarget, o?: RequestOptions) =>
    pget<Proposals>('summary/cluster-propose', { train_id: t.trainId }, o),
}
