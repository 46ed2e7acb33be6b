// One loader for a view's answer: fetched whenever `key` changes, the previous request aborted, the answer or the
// failure kept with the state a view shows. Replaces the hand-rolled `AbortController` loaders of the views.
//   state: loading | ready | missing (an expected absence, told by `outcome`) | error | idle (`when` said no)
// Options: `outcome` classifies a failure (the profiler's: a file not written is `missing`); `keep` leaves the last
// answer shown while the next one loads (a table being paged); `drop` forgets it as the next request starts (another
// subject: nothing of the previous one is shown meanwhile); `when` false = no request at all (state `idle`).
import { onScopeDispose, ref, shallowRef, watch } from 'vue'
import { isAbort } from '@/api/client'

export type FetchState = 'idle' | 'loading' | 'ready' | 'missing' | 'error'

export interface FetchOptions {
  outcome?: (e: unknown) => 'missing' | 'error'
  keep?: boolean
  drop?: boolean
  when?: () => boolean
}

export function useFetch<T>(key: () => unknown, fetcher: (signal: AbortSignal) => Promise<T>, opts: FetchOptions = {}) {
  const state = ref<FetchState>('loading')
  const data = shallowRef<T | null>(null)
  const error = shallowRef<unknown>(null)
  let ctl: AbortController | null = null

  async function load(): Promise<void> {
    ctl?.abort()
    ctl = null
    if (opts.when && !opts.when()) {
      data.value = null
      error.value = null
      state.value = 'idle'
      return
    }
    const c = new AbortController()
    ctl = c
    if (opts.drop) data.value = null
    if (!(opts.keep && data.value !== null && state.value === 'ready')) state.value = 'loading'
    error.value = null
    try {
      const d = await fetcher(c.signal)
      if (c.signal.aborted) return
      data.value = d
      state.value = 'ready'
    } catch (e) {
      if (isAbort(e) || c.signal.aborted) return
      data.value = null
      error.value = e
      state.value = opts.outcome ? opts.outcome(e) : 'error'
    }
  }

  /** drop the request in flight (its answer is not kept); what is shown stays */
  function abort(): void {
    ctl?.abort()
    ctl = null
  }

  watch(key, () => void load(), { immediate: true })
  onScopeDispose(abort)
  return { state, data, error, load, abort }
}
