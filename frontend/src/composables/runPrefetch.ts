// The first requests of a run page, started by the router before the page's code has loaded (issue 32: the
// first chart of a run). Opening a run costs three requests in a row (cache the run, is it listed, its tags);
// the page's own chunks (ECharts is 750 kB) used to load first, then the three requests ran one after another.
// The router starts the cache request and the listing together as soon as the URL is known, then the tag
// list once the run is listed; useRun takes the answers instead of asking again. An answer is taken once and
// only within FRESH_MS, so a refresh or a later visit always asks the server.
import { ApiError, api } from '@/api/client'
import type { CacheResult, PluginsResponse, TrainJobsResponse } from '@/api/types'

const FRESH_MS = 5000

export interface RunPrefetch {
  cache: Promise<CacheResult | null>
  jobs: Promise<TrainJobsResponse>
  /** null when the run is not listed (asking for its tags would be a 400 in the console) */
  plugins: Promise<PluginsResponse | null>
}

let pending: { id: string; at: number; value: RunPrefetch } | null = null

/** Starts the requests for run `id` (a failure is handed to useRun, which reports it as it would its own). */
export function startRunPrefetch(id: string): void {
  if (!id || (pending && pending.id === id && performance.now() - pending.at < FRESH_MS)) return
  const cache = api.cacheTrainJobs([id]).catch((e) => {
    if (e instanceof ApiError && e.kind === 'network') throw e
    return null // as useRun: a run the server cannot cache is still asked about
  })
  const jobs = api.trainJobs({ train_id: id, data_version: true })
  const plugins = jobs.then((brief) =>
    brief.train_jobs.some((j) => j.train_id === id)
      ? api.plugins(id).catch((e) => {
          if (e instanceof ApiError && e.code === '50545005') return null
          throw e
        })
      : null,
  )
  // Nobody may await these (the page never came): keep an unhandled rejection out of the console.
  for (const p of [cache, jobs, plugins]) p.catch(() => undefined)
  pending = { id, at: performance.now(), value: { cache, jobs, plugins } }
}

/** The prefetched requests of run `id` if they are fresh; each is handed out once. */
export function takeRunPrefetch(id: string): RunPrefetch | null {
  const p = pending
  if (!p || p.id !== id || performance.now() - p.at > FRESH_MS) return null
  pending = null
  return p.value
}
