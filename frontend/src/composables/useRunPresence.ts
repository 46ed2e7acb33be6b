// Whether the server still lists a run (`train-jobs?train_id=`), the one rule every page keyed by a run follows
// when the run disappears (deleted or moved while its page is open): once the server has scanned the base dir
// (load_status "loaded") and no longer lists the run, the page shows "Run not found" (StateBlock kind notFound,
// hint common.runNotFoundHint) instead of its old data, without asking for anything about the run again, so no
// "Train job is not exist" error or failed request reaches the console. While the server is still scanning, a
// run it does not list yet is "pending", not gone.
//
// useRun (the summary pages) checks through `check()` on its own load; a page without useRun (the profiler pages)
// calls `useRunPresence(trainId, { poll: true })`, which checks on mount, on a new train_id and on every refresh tick.
import { computed, ref, shallowRef, watch, type Ref } from 'vue'
import { api, isAbort, type TrainJob } from '@/api/client'
import type { TrainJobsResponse } from '@/api/types'
import { onRefresh } from './useRefresh'
import { useFetch } from './useFetch'
import { TAG_LIMIT } from './runPrefetch'

export type Presence = 'unknown' | 'present' | 'pending' | 'gone'

export function useRunPresence(trainId: Ref<string>, opts: { poll?: boolean } = {}) {
  const presence = ref<Presence>('unknown')
  const job = shallowRef<TrainJob | null>(null)

  /** Asks the server whether it lists the run (or takes the router's answer, `prefetched`); sets `presence` and
   * `job` (null when not listed). */
  async function check(signal?: AbortSignal, prefetched?: Promise<TrainJobsResponse>): Promise<Presence> {
    const id = trainId.value
    if (!id) {
      job.value = null
      presence.value = 'gone'
      return presence.value
    }
    const brief = await (prefetched ?? api.trainJobs({ train_id: id, data_version: true, tag_limit: TAG_LIMIT }, { signal }))
    if (signal?.aborted || id !== trainId.value) return presence.value
    job.value = brief.train_jobs.find((j) => j.train_id === id) ?? null
    presence.value = job.value ? 'present' : brief.load_status === 'loaded' ? 'gone' : 'pending'
    return presence.value
  }

  if (opts.poll) {
    watch(trainId, () => {
      presence.value = 'unknown'
      job.value = null
    })
    // checked on mount, on a new train_id and on every refresh tick; unreachable: keep what we knew
    const { load } = useFetch(() => trainId.value, (signal) =>
      check(signal).catch((e) => {
        if (!isAbort(e) && presence.value !== 'gone') presence.value = 'unknown'
      }),
    )
    onRefresh(() => void load())
  }

  return { presence, job, gone: computed(() => presence.value === 'gone'), check }
}
