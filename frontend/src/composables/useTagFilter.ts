// The tags a filter lets through, kept up to date as the filter and the tags change (lib/tagFilter.ts: a regex runs
// in the worker with a time limit). One worker run per (filter, tags): the tag selector and its page share it, and
// a refresh that brings the same tags runs nothing again.
import { shallowRef, toRaw, watch, type Ref } from 'vue'
import { MATCH_TIMEOUT_MS, spawnRegexWorker, type WorkerLike } from '@/lib/safeRegex'
import { filterTags, filterTagsNow, type TagFilterResult } from '@/lib/tagFilter'

/** The last few answers, shared by every filter of the app (a page and its tag selector ask the same). */
const MEMO_SIZE = 16
const memo = new Map<string, Promise<TagFilterResult>>()

function remembered(key: string, run: () => Promise<TagFilterResult>): Promise<TagFilterResult> {
  let res = memo.get(key)
  if (!res) {
    res = run()
    memo.set(key, res)
    if (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value as string)
  }
  return res
}

export function useTagFilter(
  tags: () => string[],
  pattern: () => string,
  spawn: () => WorkerLike = spawnRegexWorker,
  timeoutMs = MATCH_TIMEOUT_MS,
): Readonly<Ref<TagFilterResult>> {
  const result = shallowRef<TagFilterResult>({ tags: [], invalid: false, slow: false, pending: true })
  let current = ''
  watch(
    [tags, pattern],
    ([list, p]) => {
      const now = filterTagsNow(list, p)
      if (now) {
        current = ''
        result.value = now
        return
      }
      const key = JSON.stringify([p.trim(), list])
      if (key === current) return
      current = key
      if (!result.value.pending) result.value = { ...result.value, pending: true }
      const plain = toRaw(list) // a reactive array cannot be posted to the worker
      void remembered(key, () => filterTags(plain, p, spawn, timeoutMs)).then((res) => {
        if (current === key) result.value = res
      })
    },
    { immediate: true },
  )
  return result
}
