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
}

export interface MsprobeFile {
  file_id: string
  kind: 'compare' | 'vis' | 'trend'
  size: number
}

export const msprobeCompareApi = {
  compare: (body: { target: CompareSide; bench: CompareSide; result?: CompareResult; limit?: number }, o?: RequestOptions) =>
    postJson<CompareAnswer>('msprobe/compare', { mode: 'statistics', ...body }, {}, o),
  files: (o?: RequestOptions) => getJson<{ files: MsprobeFile[] }>('msprobe/files', {}, o),
  compareResult: (fileId: string, o?: RequestOptions) =>
    getJson<{ columns: string[]; rows: Record<string, string>[]; counts: Record<CompareResult, number> }>('msprobe/compare_result', { file_id: fileId }, o),
}
