// Loads one profiler view's answer for the current target (composables/useFetch): aborts the previous request, and
// tells a file this rank has not written (the API module's ProfilerMissing: state `missing`) from any other error.
import { onScopeDispose, ref, watch, type Ref } from 'vue'
import { useFetch, type FetchOptions } from '@/composables/useFetch'
import { loadOutcome } from '@/api/profilerApi'

export function useProfilerData<T>(key: () => unknown, fetcher: (signal: AbortSignal) => Promise<T>, opts: Omit<FetchOptions, 'outcome'> = {}) {
  return useFetch(key, fetcher, { ...opts, outcome: loadOutcome })
}

/** A table's search box: its text is applied (trimmed) 250 ms after the last keystroke, from the first `page`. */
export function useSearchBox(page: Ref<number>) {
  const search = ref('')
  const applied = ref('')
  let timer: number | undefined
  watch(search, (v) => {
    window.clearTimeout(timer)
    timer = window.setTimeout(() => {
      applied.value = v.trim()
      page.value = 0
    }, 250)
  })
  onScopeDispose(() => window.clearTimeout(timer))
  return { search, applied }
}
