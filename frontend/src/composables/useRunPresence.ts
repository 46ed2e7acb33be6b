// Whether a run is still there, re-checked on every refresh tick (auto-refresh timer or the refresh button), for
// pages that read a run through endpoints of their own (the profiler) rather than through useRun. It asks what
// useRun asks (train-jobs?train_id=: an unknown id is an empty list, not a 400), so every page follows a run's
// disappearance the same way and as fast. `gone` is true once the server has finished scanning and no longer lists
// the run; `onCheck` hears every answer ('listed' / 'gone' / 'unknown') so the page can drop or reload its data.
import { onBeforeUnmount, ref, type Ref } from 'vue'
import { api, isAbort } from '@/api/client'
import { onRefresh } from './useRefresh'

export type Presence = 'listed' | 'gone' | 'unknown'

/** 'gone' only when the server has finished scanning and does not list the run; 'unknown' while it still scans or
 * cannot be asked (a page keeps what it shows then). Throws only when aborted. */
export async function runPresence(trainId: string, signal?: AbortSignal): Promise<Presence> {
  try {
    const brief = await api.trainJobs({ train_id: trainId }, { signal })
    if (brief.train_jobs.some((j) => j.train_id === trainId)) return 'listed'
    return brief.load_status === 'loaded' ? 'gone' : 'unknown'
  } catch (e) {
    if (isAbort(e)) throw e
    return 'unknown'
  }
}

export function useRunPresence(trainId: Ref<string>, onCheck: (p: Presence) => void = () => {}) {
  const gone = ref(false)
  let ctl: AbortController | null = null

  /** Asks now; `notify` calls onCheck with the answer (the refresh ticks do). */
  async function check(notify = false): Promise<Presence> {
    ctl?.abort()
    const c = new AbortController()
    ctl = c
    const id = trainId.value
    if (!id) return 'unknown'
    let p: Presence
    try {
      p = await runPresence(id, c.signal)
    } catch {
      return 'unknown' // aborted: a newer check runs
    }
    if (c.signal.aborted || id !== trainId.value) return 'unknown'
    if (p !== 'unknown') gone.value = p === 'gone'
    if (notify) onCheck(p)
    return p
  }

  onRefresh(() => void check(true))
  onBeforeUnmount(() => ctl?.abort())
  return { gone, check }
}
