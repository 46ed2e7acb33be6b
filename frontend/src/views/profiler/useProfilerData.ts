// Loads one profiler view's answer for the current target (composables/useFetch): aborts the previous request, and
// tells a file this rank has not written (the API module's ProfilerMissing: state `missing`) from any other error.
import { useFetch, type FetchOptions } from '@/composables/useFetch'
import { loadOutcome } from '@/api/profilerApi'

export function useProfilerData<T>(key: () => unknown, fetcher: (signal: AbortSignal) => Promise<T>, opts: Omit<FetchOptions, 'outcome'> = {}) {
  return useFetch(key, fetcher, { ...opts, outcome: loadOutcome })
}
