// A run's tags listed from the server (`datavisual/tags`, issue 32) for a run with too many to list on the page:
// the matches of a search (and prefix) fetched in blocks of BLOCK as rows come into view, with the match count,
// the total, the prefix groups below the prefix and the regex notices. A new search or prefix starts over (the
// requests of the old one are aborted); until its first block answers, the previous answer stays shown.
// `seed`: the tags the page already has in the server's order (the run's tag list as `train-jobs?tag_limit=` cut
// it, and the full count): the whole list, unsearched, starts from them, so the first page's charts are asked for
// without waiting for the first block (which is still asked, for the prefix groups).
import { ref, shallowRef, watch, type Ref } from 'vue'
import { api, isAbort, type TagGroup } from '@/api/client'
import { serverTagSearch } from '@/lib/tagFilter'

export const BLOCK = 200

/** The block indexes rows [start, end) fall in. */
export function blocksOf(start: number, end: number, block = BLOCK): number[] {
  if (end <= start) return []
  const out: number[] = []
  for (let b = Math.floor(Math.max(0, start) / block); b * block < end; b++) out.push(b)
  return out
}

export function useServerTagList(
  trainId: Ref<string>,
  plugin: string,
  enabled: () => boolean,
  filter: () => string,
  prefix: () => string,
  debounceMs = 200,
  seed?: () => { tags: readonly string[]; total: number } | null,
) {
  const matched = ref(0)
  const total = ref(0)
  const groups = shallowRef<TagGroup[]>([])
  const invalid = ref(false)
  const slow = ref(false)
  const error = ref('')
  /** false until the first block of the current search answered */
  const ready = ref(false)
  const blocks = shallowRef(new Map<number, string[]>())
  let ctl = new AbortController()
  let pending = new Set<number>()
  let generation = 0
  /** the generation whose blocks `blocks` holds */
  let shownGeneration = -1
  /** the blocks of the rows in view, per view (the list, the charts) */
  const wantedBy = new Map<string, number[]>()
  const wanted = () => [...new Set([...wantedBy.values()].flat())]

  function query() {
    return { train_id: trainId.value, plugin, ...serverTagSearch(filter()), prefix: prefix() || undefined }
  }

  async function fetchBlock(b: number, gen: number, force = false): Promise<void> {
    if (pending.has(b) || (!force && shownGeneration === gen && blocks.value.has(b))) return
    pending.add(b)
    try {
      const res = await api.tags({ ...query(), group: b === 0 ? 'prefix' : undefined, offset: b * BLOCK, limit: BLOCK }, { signal: ctl.signal })
      if (gen !== generation) return
      // the first answer of a search replaces the previous search's blocks (a seed is of this search: kept)
      const next = new Map(b === 0 && shownGeneration !== gen ? [] : blocks.value)
      if (b === 0) shownGeneration = gen
      next.set(b, res.tags)
      blocks.value = next
      matched.value = res.matched
      total.value = res.total
      if (b === 0) {
        groups.value = res.groups ?? []
        invalid.value = !!res.invalid
        slow.value = !!res.slow
        ready.value = true
      }
      error.value = ''
    } catch (e) {
      if (!isAbort(e) && gen === generation) error.value = String((e as Error).message ?? e)
    } finally {
      pending.delete(b)
    }
  }

  /** Start over (a new search, prefix or run): the first block is asked at once, the others when in view. */
  function reset(): void {
    ctl.abort()
    ctl = new AbortController()
    pending = new Set()
    generation++
    const gen = generation
    const known = !filter() && !prefix() ? seed?.() : null
    if (known && known.tags.length) {
      // whole blocks only (and the last one when the seed is the whole list)
      const next = new Map<number, string[]>()
      const whole = known.tags.length >= known.total
      for (let b = 0; b * BLOCK < known.tags.length && ((b + 1) * BLOCK <= known.tags.length || whole); b++) {
        next.set(b, known.tags.slice(b * BLOCK, (b + 1) * BLOCK))
      }
      if (next.size) {
        blocks.value = next
        matched.value = total.value = known.total
        shownGeneration = gen
      }
    }
    void fetchBlock(0, gen, true).then(() => {
      // rows asked for while the new search was on its way (the view kept its range)
      for (const b of wanted()) if (b !== 0) void fetchBlock(b, gen)
    })
  }

  /** Ask for the blocks of rows [start, end) (what `view` has on screen). */
  function ensure(start: number, end: number, view = 'list'): void {
    wantedBy.set(view, blocksOf(start, end))
    if (shownGeneration !== generation) return // asked once the first block of the search is in
    for (const b of wanted()) void fetchBlock(b, generation)
  }

  /** Rows [start, end): the tag, or undefined while its block is on its way. */
  function rows(start: number, end: number): (string | undefined)[] {
    const out: (string | undefined)[] = []
    for (let i = Math.max(0, start); i < Math.min(end, matched.value); i++) out.push(blocks.value.get(Math.floor(i / BLOCK))?.[i % BLOCK])
    return out
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  watch([trainId, filter, prefix, enabled], (now, before) => {
    clearTimeout(timer)
    if (!now[3] || !now[0]) return
    // a new run or prefix at once; typing in the search box waits for a pause
    const typing = before && before[3] && now[0] === before[0] && now[2] === before[2]
    if (typing) timer = setTimeout(reset, debounceMs)
    else reset()
  }, { immediate: true })

  return { matched, total, groups, invalid, slow, error, ready, ensure, rows, blocks, reset }
}
