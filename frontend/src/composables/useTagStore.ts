// Per-tag data of a run page: one entry per tag ({ data, loading, error }), fetched for the
// tags in `tags()` whenever the run is (re)loaded (useRun's `version`: first load and every
// auto-refresh tick) or the list of tags changes. A fetch that returns what is already there
// (`same`) keeps the old object, so charts do not re-render on an unchanged refresh.
import { onBeforeUnmount, reactive, watch, type Ref } from 'vue'
import { ApiError, isAbort } from '@/api/client'
import type { RunStatus } from './useRun'

export interface TagEntry<T> {
  data: T
  loading: boolean
  error: ApiError | null
}

export interface TagStoreOptions<T> {
  run: { status: Ref<RunStatus>; version: Ref<number> }
  trainId: Ref<string>
  tags: () => string[]
  fetch: (tag: string, signal: AbortSignal) => Promise<T>
  empty: () => T
  same?: (a: T, b: T) => boolean
}

export function useTagStore<T>(opts: TagStoreOptions<T>) {
  const store = reactive(new Map<string, TagEntry<T>>()) as Map<string, TagEntry<T>>
  let controller: AbortController | null = null

  function entry(tag: string): TagEntry<T> {
    if (!store.has(tag)) store.set(tag, { data: opts.empty(), loading: true, error: null })
    return store.get(tag)!
  }

  async function load(): Promise<void> {
    controller?.abort()
    const ctl = new AbortController()
    controller = ctl
    await Promise.all(
      opts.tags().map(async (tag) => {
        const e = entry(tag)
        try {
          const next = await opts.fetch(tag, ctl.signal)
          if (ctl.signal.aborted) return
          if (!(opts.same && opts.same(e.data, next))) e.data = next
          e.error = null
        } catch (err) {
          if (!isAbort(err)) e.error = err instanceof ApiError ? err : new ApiError('http', String(err))
        } finally {
          if (!ctl.signal.aborted) e.loading = false
        }
      }),
    )
  }

  watch(opts.trainId, () => store.clear())
  // One string, compared by value: a new list of the same tags (a page recomputing it when the run's tag lists
  // change, e.g. read whole after the first charts) asks for nothing again.
  watch(
    () => `${opts.run.version.value}\n${opts.tags().join('\n')}`,
    () => {
      if (opts.run.status.value === 'ready') void load()
    },
  )
  onBeforeUnmount(() => controller?.abort())

  return { store, entry, load, get: (tag: string) => store.get(tag) }
}
