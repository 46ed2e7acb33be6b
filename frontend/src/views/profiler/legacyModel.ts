// Pure data shaping for the old Ascend/GPU layout's views (no Vue, no ECharts): step phases, the training trace
// graph as bars, the cluster columns per parallel mode, the proposals as translatable items.
import type { MessageKey } from '@/i18n'
import type { OldClusterStepTrace, LinkInfo, StepSummary, TracePoint } from '@/api/profilerApi'

export interface PhaseMs {
  key: 'iteration_interval' | 'fp_and_bp' | 'tail' | 'fp'
  ms: number
  percent: string
}

/** The step's phases from MindInsight's step trace summary: interval, fp+bp, tail (training) or interval, fp. */
export function stepPhases(s: StepSummary | undefined | null): PhaseMs[] {
  if (!s) return []
  const out: PhaseMs[] = [{ key: 'iteration_interval', ms: s.iteration_interval, percent: s.iteration_interval_percent }]
  if (s.fp_and_bp !== undefined) {
    out.push({ key: 'fp_and_bp', ms: s.fp_and_bp, percent: s.fp_and_bp_percent ?? '' })
    out.push({ key: 'tail', ms: s.tail ?? 0, percent: s.tail_percent ?? '' })
  } else if (s.fp !== undefined) {
    out.push({ key: 'fp', ms: s.fp, percent: s.fp_percent ?? '' })
  }
  return out
}

export interface TraceBar {
  /** 0 = the whole step, 1 = interval / fp+bp / tail, 2.. = one reduce stream each */
  row: number
  name: string
  start: number
  duration: number
}

/** The graph's named points as bars (the gaps MindInsight puts between reduce events, and invalid `{}` points,
 * are left out); the first line's unnamed point is the whole step. */
export function traceBars(graph: TracePoint[][] | undefined): TraceBar[] {
  const bars: TraceBar[] = []
  ;(graph ?? []).forEach((line, row) => {
    for (const p of line) {
      if (p.start === undefined || p.duration === undefined) continue
      if (!p.name && row > 0) continue
      bars.push({ row, name: p.name || 'step', start: p.start, duration: p.duration })
    }
  })
  return bars
}

/** The lane label of a trace row: the stream id of a reduce line (`stream_520_parallel_0` -> `stream 520`). */
export function traceRowLabel(row: number, bars: TraceBar[]): string {
  if (row === 0) return 'step'
  if (row === 1) return 'main'
  const first = bars.find((b) => b.row === row)
  const m = first ? /^stream_(\d+)/.exec(first.name) : null
  return m ? `stream ${m[1]}` : `#${row}`
}

/** The columns of a cluster step trace row by parallel mode (MindInsight's), and which of them stack to the step. */
export function clusterColumns(mode: string): { columns: string[]; stacked: number } {
  if (mode === 'pipeline-parallel') {
    return {
      columns: ['iteration_interval', 'computation', 'communication_alone', 'stage', 'receive_alone', 'collective_communication_alone'],
      stacked: 3,
    }
  }
  if (mode === 'model-parallel') return { columns: ['iteration_interval', 'computation', 'communication_alone'], stacked: 3 }
  return { columns: ['iteration_interval', 'fp_and_bp', 'tail'], stacked: 3 }
}

export interface ClusterRow {
  rank: number
  stage: number
  values: number[]
}

/** One row per rank, its values in `clusterColumns` order, and its pipeline stage (1-based). */
export function clusterRows(data: OldClusterStepTrace | null): ClusterRow[] {
  if (!data) return []
  const ranks = data.info.length
  const perStage = data.stage_num > 0 ? Math.max(1, Math.floor(ranks / data.stage_num)) : ranks
  return [...data.info]
    .sort((x, y) => x.rank_id - y.rank_id)
    .map((r) => ({
      rank: r.rank_id,
      stage: data['parallel-mode'] === 'pipeline-parallel' ? Math.floor(r.rank_id / perStage) + 1 : 1,
      values: (r.step_bottleneck_info ?? r.step_trace_info ?? []).slice(0, clusterColumns(data['parallel-mode']).columns.length),
    }))
}

export interface LinkRow {
  src: number
  dst: number
  type: string
  costMs: number
  size: number
  bandwidth: number
}

/** The links of one rank's communication info (`{"src-dst": {type: [cost, size, bandwidth]}}`). */
export function linkRows(info: LinkInfo | undefined): LinkRow[] {
  const out: LinkRow[] = []
  for (const [pair, byType] of Object.entries(info ?? {})) {
    const [src, dst] = pair.split('-').map(Number)
    for (const [type, v] of Object.entries(byType ?? {})) {
      out.push({ src, dst, type, costMs: v[0], size: v[1], bandwidth: v[2] })
    }
  }
  return out
}

export interface ProposalItem {
  key: string
  message: MessageKey
  params: Record<string, string | number>
}

const PROPOSALS: Record<string, MessageKey> = {
  'step_trace-iter_interval': 'legacy.propose.iterInterval',
  minddata_device_queue: 'legacy.propose.deviceQueue',
  minddata_device_queue_rate: 'legacy.propose.deviceQueueRate',
  minddata_get_next_queue: 'legacy.propose.getNextQueue',
  device_queue_warning: 'legacy.propose.deviceQueueWarning',
  minddata_cpu_utilization: 'legacy.propose.cpuUtilization',
  'minddata_pipeline-general': 'legacy.propose.pipelineGeneral',
  'minddata_pipeline-dataset_op': 'legacy.propose.pipelineDataset',
  'minddata_pipeline-generator_op': 'legacy.propose.pipelineGenerator',
  'minddata_pipeline-map_op': 'legacy.propose.pipelineMap',
  'minddata_pipeline-batch_op': 'legacy.propose.pipelineBatch',
  'common-profiler_tutorial': 'legacy.propose.tutorial',
  step_interval: 'legacy.propose.slowStep',
  flops_per_second: 'legacy.propose.slowFlops',
  cluster_link: 'legacy.propose.slowLink',
  data_parallel_communication_rate: 'legacy.propose.dataParallel',
  model_parallel_communication_rate: 'legacy.propose.modelParallel',
  pipeline_parallel_between_stage: 'legacy.propose.betweenStage',
  pipeline_parallel_within_stage: 'legacy.propose.withinStage',
  pipeline_parallel_flops: 'legacy.propose.stageFlops',
}

function params(value: unknown): Record<string, string | number> {
  if (Array.isArray(value)) return Object.fromEntries(value.map((v, i) => [String(i), String(v)]))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'number' ? v : String(v)]))
  }
  return {}
}

/** The proposals MindInsight answers, in its order, as messages with their values (category labels and keys we
 * have no message for are left out). */
export function proposalItems(proposals: Record<string, unknown> | null | undefined): ProposalItem[] {
  const out: ProposalItem[] = []
  for (const [key, value] of Object.entries(proposals ?? {})) {
    if (key === 'parallel_strategy' && value && typeof value === 'object') {
      out.push(...proposalItems(value as Record<string, unknown>))
      continue
    }
    if (key === 'cluster_link' && Array.isArray(value)) {
      for (const link of value) out.push({ key, message: PROPOSALS[key], params: params(link) })
      continue
    }
    const message = PROPOSALS[key]
    if (message) out.push({ key, message, params: params(value) })
  }
  return out
}
