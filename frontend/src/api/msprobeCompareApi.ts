// msprobe compare (issue 35): POST /v1/mindinsight/msprobe/compare, GET msprobe/compare_result and msprobe/files.
import { getJson, postJson, type RequestOptions } from './client'
import type { Stat } from './msprobeDumpsApi'

export type CompareResult = 'pass' | 'warning' | 'error'

export interface CompareRow {
  node: string
  target_name: string
  bench_name: string | null
  io: string
  result: CompareResult
  err_message: string[]
  target_dtype: string | null
  bench_dtype: string | null
  max_diff: Stat
  norm_diff: Stat
  norm_relative_err: Stat
  max_relative_err: Stat
}

export interface CompareSide {
  dump_id: string
  step?: number
  rank?: string
}

export interface CompareAnswer {
  rows: CompareRow[]
  total: number
  counts: Record<CompareResult, number>
  unmatched: number
  first_divergence: CompareRow | null
  /** the matching used (null: by name) */
  mapping?: MappingKind | null
}

/** The UI's matching choice as the request's `mapping` (undefined: by name; a yaml kind without a path: not sent). */
export function mappingBody(choice: '' | 'api-builtin' | MappingKind, path: string): CompareMapping | undefined {
  const file = path.trim()
  if (choice === '') return undefined
  if (choice === 'api-builtin') return { api: true }
  if (!file) return undefined
  if (choice === 'api') return { api: file }
  return choice === 'cell' ? { cell: file } : choice === 'layer' ? { layer: file } : { data: file }
}

export interface MsprobeFile {
  file_id: string
  /** monitor: a folder of msprobe's training-state monitor CSVs, read as a trend file (size -1) */
  kind: 'compare' | 'vis' | 'trend' | 'monitor'
  size: number
}

/** msprobe's cross-framework node matching, one kind (-am / -cm / -lm / -dm): `api: true` is its built-in table; a
 * string is a yaml path relative to the summary base dir. */
export type CompareMapping = { api: true | string } | { cell: string } | { layer: string } | { data: string }
export type MappingKind = 'api' | 'cell' | 'layer' | 'data'

export const msprobeCompareApi = {
  compare: (
    body: { target: CompareSide; bench: CompareSide; result?: CompareResult; limit?: number; mapping?: CompareMapping },
    o?: RequestOptions,
  ) =>
    postJson<CompareAnswer>('msprobe/compare', { mode: 'statistics', ...body }, {}, o),
  files: (o?: RequestOptions) => getJson<{ files: MsprobeFile[] }>('msprobe/files', {}, o),
  compareResult: (fileId: string, o?: RequestOptions) =>
    getJson<{ columns: string[]; rows: Record<string, string>[]; counts: Record<CompareResult, number> }>('msprobe/compare_result', { file_id: fileId }, o),
}
