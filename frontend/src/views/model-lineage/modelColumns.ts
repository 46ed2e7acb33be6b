// Model lineage: rows and columns from `POST lineagemgr/lineages` objects.
import type { LineageObject } from '@/api/client'
import { kindOf, isMissing, type Column, type Row } from './lineageTable'

/** The model_lineage fields, in MindInsight's column order (after metrics and user-defined ones). */
export const HYPER_FIELDS = [
  'loss',
  'network',
  'optimizer',
  'train_dataset_count',
  'test_dataset_count',
  'learning_rate',
  'epoch',
  'batch_size',
  'device_num',
  'model_size',
  'loss_function',
  'train_dataset_path',
  'test_dataset_path',
] as const

export function modelRows(objects: LineageObject[]): Row[] {
  return objects
    .filter((o) => o.model_lineage && Object.keys(o.model_lineage).length > 0)
    .map((o, index) => {
      const ml = (o.model_lineage ?? {}) as Record<string, unknown>
      const values: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(ml)) {
        if (k === 'metric' || k === 'user_defined') continue
        values[k] = v
      }
      for (const [k, v] of Object.entries((ml.metric as Record<string, unknown>) ?? {})) values[`metric/${k}`] = v
      for (const [k, v] of Object.entries((ml.user_defined as Record<string, unknown>) ?? {})) values[`user_defined/${k}`] = v
      return {
        id: o.summary_dir,
        index,
        tag: Number(o.added_info?.tag ?? 0) || 0,
        remark: String(o.added_info?.remark ?? ''),
        values,
      }
    })
}

/** All columns the rows offer: dataset mark, metrics, user-defined, then the hyper-parameters. */
export function modelColumns(rows: Row[]): Column[] {
  const metrics = new Set<string>()
  const user = new Set<string>()
  for (const r of rows) {
    for (const k of Object.keys(r.values)) {
      if (k.startsWith('metric/')) metrics.add(k)
      else if (k.startsWith('user_defined/')) user.add(k)
    }
  }
  const col = (key: string, label: string, group: Column['group']): Column => ({
    key,
    label,
    group,
    kind: key === 'dataset_mark' ? 'string' : kindOf(rows.map((r) => r.values[key])),
  })
  return [
    col('dataset_mark', 'dataset_mark', 'data'),
    ...[...metrics].sort().map((k) => col(k, `[M]${k.slice(7)}`, 'metric')),
    ...[...user].sort().map((k) => col(k, `[U]${k.slice(13)}`, 'user')),
    ...HYPER_FIELDS.map((k) => col(k, k, 'hyper')),
  ]
}

/**
 * Default selection: metrics with a value, and the other columns whose value differs
 * between runs (a missing value counts as a value); constant columns stay selectable.
 */
export function defaultColumnKeys(columns: Column[], rows: Row[]): string[] {
  return columns
    .filter((c) => {
      const values = rows.map((r) => r.values[c.key])
      if (values.every(isMissing)) return false
      if (c.group === 'metric' || rows.length < 2) return true
      return new Set(values.map((v) => (isMissing(v) ? '\u0000' : JSON.stringify(v)))).size > 1
    })
    .map((c) => c.key)
}
