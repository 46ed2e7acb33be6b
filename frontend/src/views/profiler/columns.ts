// Profiler table columns: labels in the UI's language and units from the server's column definitions
// (GET profile/columns, docs/profiler.md), never guessed from a column's name. A header shows its unit once
// ("Total time (µs)"); the cells are plain numbers in that unit; the raw field name stays in the header's tooltip.
import { t, type MessageKey } from '@/i18n'
import { prof, type OpsTable } from '@/api/profilerApi'
import type { OpSlice } from './OpTypeChart.vue'

export type Unit = 'us' | 'ms' | 'percent' | 'fraction' | 'count' | null
export interface ColumnDef {
  name: string
  unit: Unit
  /** an absolute time (µs since the epoch): shown relative to the answer's `time_origin_us` */
  timestamp?: boolean
}
/** table (ops/search op_type, `operator-details`, `api-statistic`) -> column -> definition */
export type ColumnDefs = Record<string, Record<string, ColumnDef>>

let loading: Promise<ColumnDefs> | null = null

/** The definitions, asked once per page load (they describe the server, not a run). */
export function loadColumnDefs(): Promise<ColumnDefs> {
  if (!loading) {
    loading = prof
      .columns()
      .then((r) => Object.fromEntries(Object.entries(r.tables).map(([k, cols]) => [k, Object.fromEntries(cols.map((c) => [c.name, c as ColumnDef]))])))
      .catch((e) => {
        loading = null // ask again next time
        throw e
      })
  }
  return loading
}

export function columnDef(defs: ColumnDefs | null, table: string, column: string): ColumnDef {
  return defs?.[table]?.[column] ?? { name: column, unit: null }
}

const UNIT_TEXT: Record<string, string> = { us: 'µs', ms: 'ms', percent: '%', fraction: '%' }

/** The unit as shown in a header ('' for counts and text). A fraction is shown as a percent. */
export function unitText(unit: Unit): string {
  return unit ? (UNIT_TEXT[unit] ?? '') : ''
}

const TO_US: Record<string, number> = { us: 1, ms: 1000 }

/** A time value in µs (null when the column is not a time). */
export function toUs(value: unknown, unit: Unit): number | null {
  const n = typeof value === 'number' ? value : Number(value)
  if (!unit || !(unit in TO_US) || !Number.isFinite(n)) return null
  return n * TO_US[unit]
}

/** Labels of the columns the profiler tables answer (raw field names are MindInsight's and the profiler's). */
const LABELS: Record<string, MessageKey> = {
  op_type: 'col.op_type',
  op_name: 'col.op_name',
  op_side: 'col.op_side',
  full_op_name: 'col.full_op_name',
  op_full_name: 'col.full_op_name',
  name: 'col.name',
  type: 'col.type',
  subgraph: 'col.subgraph',
  op_info: 'col.op_info',
  core_type: 'col.core_type',
  execution_time: 'col.execution_time',
  execution_frequency: 'col.execution_frequency',
  type_occurrences: 'col.execution_frequency',
  op_occurrences: 'col.execution_frequency',
  occurrences: 'col.execution_frequency',
  percent: 'col.percent',
  total_percent: 'col.percent',
  proportion: 'col.percent',
  total_time_proportion: 'col.percent',
  total_compute_time: 'col.total_time',
  total_time: 'col.total_time',
  total_time_us: 'col.total_time',
  op_total_time: 'col.total_time',
  total_duration: 'col.total_time',
  avg_time: 'col.avg_time',
  avg_time_us: 'col.avg_time',
  op_avg_time: 'col.avg_time',
  avg_duration: 'col.avg_time',
  avg_execution_time: 'col.avg_time',
  min_time_us: 'col.min_time',
  min_duration: 'col.min_time',
  max_time_us: 'col.max_time',
  max_duration: 'col.max_time',
  cuda_activity_cost_time: 'col.cuda_time',
  cuda_activity_call_count: 'col.cuda_calls',
  step_id: 'col.step',
  step: 'col.step',
  stream_id: 'col.stream_id',
  task_id: 'col.task_id',
  start_time_us: 'col.start_time',
  run_start: 'col.start_time',
  run_end: 'col.end_time',
  duration_us: 'col.duration',
  duration: 'col.duration',
  wait_time_us: 'col.wait_time',
  dispatch_time: 'col.dispatch_time',
  serial_number: 'col.serial_number',
  block_dim: 'col.block_dim',
  grid_dim: 'col.grid_dim',
  input_shapes: 'col.input_shapes',
  input_data_types: 'col.input_data_types',
  input_formats: 'col.input_formats',
  output_shapes: 'col.output_shapes',
  output_data_types: 'col.output_data_types',
  output_formats: 'col.output_formats',
  op_shape: 'col.input_shapes',
  // operator_details.csv / api_statistic.csv
  call_stack: 'ascend.callStack',
  host_self_us: 'ascend.hostSelf',
  host_total_us: 'ascend.hostTotal',
  device_self_us: 'ascend.deviceSelf',
  device_total_us: 'ascend.deviceTotal',
  device_self_aicore_us: 'ascend.deviceSelfAicore',
  device_total_aicore_us: 'ascend.deviceTotalAicore',
  level: 'ascend.apiLevel',
  api_name: 'ascend.apiName',
  time_us: 'ascend.apiTime',
  count: 'advice.col.count',
  avg_us: 'ascend.apiAvg',
  min_us: 'ascend.apiMin',
  max_us: 'ascend.apiMax',
  variance: 'ascend.apiVariance',
  // the data pipeline's operator queues (minddata_pipeline_raw_<id>.csv)
  kernel_type: 'col.kernel_type',
  op_id: 'col.op_id',
  num_workers: 'col.num_workers',
  output_queue_size: 'col.queue_sizes',
  output_queue_average_size: 'col.queue_average',
  output_queue_length: 'col.queue_capacity',
  output_queue_usage_rate: 'col.queue_usage',
  sample_interval: 'col.sample_interval',
  parent_id: 'col.parent_id',
  children_id: 'col.children_id',
}

/** Where one name means another thing: MindSpore's CPU type table counts executions in `type_occurrences` and the
 * executions per step in `execution_frequency` (Ascend's `execution_frequency` is the total, as `Count`). */
const TABLE_LABELS: Record<string, Record<string, MessageKey>> = {
  cpu_op_type: { type_occurrences: 'col.execution_frequency', execution_frequency: 'col.per_step' },
}

/** A column's label in the UI's language (the raw name when it has none). */
export function columnLabel(column: string, table = ''): string {
  const key = TABLE_LABELS[table]?.[column] ?? LABELS[column]
  return key ? t(key) : column
}

/** "Label (unit)": the unit once, from the definition; timestamps say what they are relative to. */
export function columnHeader(def: ColumnDef, table = ''): string {
  const label = columnLabel(def.name, table)
  const unit = unitText(def.unit)
  if (def.timestamp) return `${t('col.fromStart', { label })} (${unit || 'µs'})`
  return unit ? `${label} (${unit})` : label
}

/** The header's tooltip: the raw field name, and for a timestamp where it is counted from. */
export function columnTitle(def: ColumnDef, origin: number | null | undefined): string {
  const parts = [def.name]
  if (def.timestamp && typeof origin === 'number') parts.push(t('col.originHint', { origin: String(origin) }))
  return parts.join(' · ')
}

/** A cell in its header's unit: a plain number (a fraction as a percent, a timestamp from the origin). */
export function cellValue(value: unknown, def: ColumnDef, origin?: number | null): string {
  if (value === null || value === undefined || value === '') return '–'
  if (typeof value !== 'number') return String(value)
  if (def.unit === 'fraction') return String(Number((value * 100).toFixed(3)))
  if (def.timestamp && typeof origin === 'number') return String(Number((value - origin).toFixed(3)))
  // times and shares to the ns / thousandth the files hold (operator_details.csv has float noise: 2563.2112187499997)
  return def.unit && def.unit !== 'count' ? String(Number(value.toFixed(3))) : String(value)
}

/** a cell as a finite number (0 when it is not one) */
export function num(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : 0
}

/** An operator-type table (ops/search) as chart slices: `name` and `percent` list the columns to try in order;
 * `time` turns a time cell into the chart's value. A type on two cores (core_type) is two slices, named apart. */
export function opSlices(
  table: OpsTable | null,
  cols: { name: string[]; time: string; percent: string[]; count: string },
  time: (v: unknown) => number = num,
): OpSlice[] {
  if (!table) return []
  const c = (names: string[]) => names.map((n) => table.col_name.indexOf(n)).find((i) => i >= 0) ?? -1
  const [ni, ti, pi, ci, ki] = [c(cols.name), c([cols.time]), c(cols.percent), c([cols.count]), c(['core_type'])]
  const names = table.object.map((r) => String(r[ni]))
  const twice = (i: number) => ki >= 0 && names.indexOf(names[i]) !== names.lastIndexOf(names[i])
  return table.object.map((r, i) => ({
    name: twice(i) ? `${names[i]} (${r[ki]})` : names[i],
    value: time(r[ti]),
    percent: num(r[pi]),
    count: ci >= 0 ? num(r[ci]) : undefined,
  }))
}
