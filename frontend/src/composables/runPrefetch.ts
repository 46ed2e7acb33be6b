// The first requests of a run page, started by the router before the page's code has loaded (issue 32: the
// first chart of a run). Opening a run used to cost three requests in a row (cache the run, is it listed, its
// tags); the page's own chunks (ECharts is 750 kB) used to load first, then the three requests ran one after
// another. The router starts the cache request and the listing together as soon as the URL is known; useRun
// takes the answers instead of asking again. An answer is taken once and only within FRESH_MS, so a refresh or a
// later visit always asks the server.
//
// The listing is asked with `tag_limit` (TAG_LIMIT tags per plugin, and every plugin's count): its item already
// carries the run's tags (MindInsight's `plugins` field), so a cached run whose lists are whole needs no `plugins`
// request at all, and a page that lists a long tag list from the server (the Scalars page above
// SERVER_TAG_LIST_THRESHOLD tags, `partial`) takes the cut lists and their counts: a run of 10,000 scalar tags
// answers ~30 kB instead of 400 kB twice (`train-jobs` and `plugins` each listed every tag).
import { ApiError, api } from '@/api/client'
import type { CacheResult, PluginsResponse, TrainJob, TrainJobsResponse } from '@/api/types'
import { SERVER_TAG_LIST_THRESHOLD } from '@/lib/scalarTags'

const FRESH_MS = 5000

/** The most tags of each plugin a run page reads when it opens a run (`tag_limit` of train-jobs / plugins). */
export const TAG_LIMIT = SERVER_TAG_LIST_THRESHOLD

export interface RunPrefetch {
  cache: Promise<CacheResult | null>
  jobs: Promise<TrainJobsResponse>
  /** null when the run is not listed (asking for its tags would be a 400 in the console) */
  plugins: Promise<PluginsResponse | null>
}

/** Whether some tag list of an answer with `tag_counts` (tag_limit) holds fewer tags than the plugin has. */
export function isTruncated(tags: Pick<PluginsResponse, 'plugins' | 'tag_counts'>): boolean {
  const plugins = tags.plugins as unknown as Record<string, string[] | undefined>
  return Object.entries(tags.tag_counts ?? {}).some(([name, n]) => (n ?? 0) > (plugins[name]?.length ?? 0))
}

/** The `plugins` answer a listing item stands for (the item carries the same fields). */
export function tagsOfJob(job: TrainJob): PluginsResponse {
  return {
    plugins: job.plugins,
    scalar_groups: job.scalar_groups,
    samples_twins: job.samples_twins,
    hparams_sessions: job.hparams_sessions,
    tag_counts: job.tag_counts,
  }
}

/** `plugins` of run `id`, cut to TAG_LIMIT when `partial`; null when the server no longer knows the run. */
export function askTags(id: string, partial: boolean, signal?: AbortSignal): Promise<PluginsResponse | null> {
  return api.plugins(id, false, { signal }, partial ? TAG_LIMIT : undefined).catch((e) => {
    if (e instanceof ApiError && e.code === '50545005') return null
    throw e
  })
}

/**
 * The tags of listed run `id`: its listing item's when the run is cached and its lists are whole (or cut and
 * the page takes cut lists, `partial`), without a request; else asked from `plugins` (a run still loading
 * answers there what it has by then, as it always did).
 */
export function runTags(id: string, job: TrainJob, partial: boolean, signal?: AbortSignal): Promise<PluginsResponse | null> {
  if (job.cache_status === 'CACHED' && job.plugins && (partial || !isTruncated(job))) return Promise.resolve(tagsOfJob(job))
  return askTags(id, partial, signal)
}

let pending: { id: string; at: number; value: RunPrefetch } | null = null

/**
 * Starts the requests for run `id` (a failure is handed to useRun, which reports it as it would its own);
 * `partial`: the page takes tag lists cut to TAG_LIMIT (route meta `partialTags`).
 */
export function startRunPrefetch(id: string, partial = false): void {
  if (!id || (pending && pending.id === id && performance.now() - pending.at < FRESH_MS)) return
  const cache = api.cacheTrainJobs([id]).catch((e) => {
    if (e instanceof ApiError && e.kind === 'network') throw e
    return null // as useRun: a run the server cannot cache is still asked about
  })
  const jobs = api.trainJobs({ train_id: id, data_version: true, tag_limit: TAG_LIMIT })
  const plugins = jobs.then((brief) => {
    const job = brief.train_jobs.find((j) => j.train_id === id)
    return job ? runTags(id, job, partial) : null
  })
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
