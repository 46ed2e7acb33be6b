// Loads one profiler view's answer for the current target: aborts the previous request, and tells a missing or
// unusable file (the API module's ProfilerMissing) from any other error.
import { onBeforeUnmount, ref, shallowRef, watch } from 'vue'
import { isAbort } from '@/api/client'
import { loadOutcome } from '@/api/profilerApi'

export function useAscendData<T>(key: () => string, fetcher: (signal: AbortSignal) => Promise<T>) {
  const state = ref<'loading' | 'ready' | 'missing' | 'error'>('loading')
  const data = shallowRef<T | null>(null)
  const error = shallowRef<unknown>(null)
  let ctl: AbortController | null = null

  async function load(): Promise<void> {
    ctl?.abort()
    const c = new AbortController()
    ctl = c
    state.value = 'loading'
    error.value = null
    try {
      data.value = await fetcher(c.signal)
      state.value = 'ready'
    } catch (e) {
      if (isAbort(e)) return
      data.value = null
      error.value = e
      state.value = loadOutcome(e)
    }
  }

  watch(key, () => void load(), { immediate: true })
  onBeforeUnmount(() => ctl?.abort())
  return { state, data, error, load }
}
