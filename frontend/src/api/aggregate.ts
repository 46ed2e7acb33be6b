// Group curves of many runs, aggregated on the server (`datavisual/scalars/aggregate`, docs/scalar-aggregate.md).
// Kept apart from client.ts (one small module per endpoint family); it goes through client.ts's `buildUrl`,
// so the app works under a URL path prefix.
import { ApiError, buildUrl, type RequestOptions } from './client'

/** At most this many runs per request (the server answers 400 beyond it). */
export const AGGREGATE_MAX_RUNS = 1000

export type AggregateStat = 'mean' | 'median'
export type AggregateBand = 'minmax' | 'std' | 'sem'
export const AGGREGATE_STATS: readonly AggregateStat[] = ['mean', 'median']
export const AGGREGATE_BANDS: readonly AggregateBand[] = ['minmax', 'std', 'sem']

export interface AggregateGroup {
  name: string
  train_ids: string[]
  steps: number[]
  center: (number | null)[]
  lower: (number | null)[]
  upper: (number | null)[]
  count: number[]
  exact: boolean
}

export interface AggregateResponse {
  tag: string
  stat: AggregateStat
  band: AggregateBand
  groups: AggregateGroup[]
  ungrouped: string[]
}

export interface AggregateQuery {
  trainIds: string[]
  tag: string
  /** `regex:<re>`, `hparam:<name>` or `rank_group` */
  groupBy: string
  stat: AggregateStat
  band: AggregateBand
  maxPoints: number
}

/** The URL of one aggregate request (exported for tests). */
export function aggregateUrl(q: AggregateQuery): string {
  return buildUrl('datavisual/scalars/aggregate', {
    train_ids: q.trainIds.join(','),
    tag: q.tag,
    group_by: q.groupBy,
    stat: q.stat,
    band: q.band,
    max_points: Math.max(4, Math.round(q.maxPoints)),
  })
}

export async function fetchAggregate(q: AggregateQuery, o: RequestOptions = {}): Promise<AggregateResponse> {
  let response: Response
  try {
    response = await fetch(aggregateUrl(q), { signal: o.signal, headers: { Accept: 'application/json' } })
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw new ApiError('aborted', 'aborted')
    throw new ApiError('network', 'Server unreachable')
  }
  const data = (await response.json().catch(() => undefined)) as
    | (AggregateResponse & { error_code?: string; error_msg?: string })
    | undefined
  if (!response.ok || !data) {
    throw new ApiError('http', data?.error_msg || `${response.status} ${response.statusText}`, response.status, data?.error_code || '')
  }
  return data
}
