// The window request of a scalar chart line (scalar/metadata?start_step=&end_step=&points=), for pages whose
// line keys name a run (comparison, rank overlay) or a tag (scalars page).
import { api } from '@/api/client'
import type { WindowAnswer } from '@/charts/scalarOption'
import type { WindowFetch } from './scalarExport'

/** A WindowFetch that reads line `key` as run `runOf(key)`, tag `tagOf(key)`. */
export function windowFetcher(runOf: (key: string) => string, tagOf: (key: string) => string): WindowFetch {
  return async (key, start, end, points, signal): Promise<WindowAnswer> => {
    const res = await api.scalarWindow(runOf(key), tagOf(key), start, end, points, { signal })
    return {
      points: res.metadatas,
      total: res.window?.total ?? res.metadatas.length,
      exact: res.window?.exact,
      reason: res.window?.reason,
    }
  }
}
