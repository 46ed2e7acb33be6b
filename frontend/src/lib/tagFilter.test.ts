import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { nextTick, ref } from 'vue'
import { filterTags, filterTagsNow } from './tagFilter'
import type { MatchResult, WorkerLike } from './safeRegex'
import { useTagFilter } from '@/composables/useTagFilter'

// The tag filter box / `?filter=` is a case-insensitive regular expression (TensorBoard's rule). It comes from
// a link anyone can send, and the tags from files anyone can write: `(a+)+$` against a tag of many a's
// backtracks for seconds to minutes, so no filter that can backtrack runs on the page's thread.
const TAGS = ['loss/train', 'Loss/valid', 'accuracy/train', 'lr']
const EVIL_TAG = 'a'.repeat(28) + '!' // `(a+)+$` takes 2^n steps on it: ~4 s on the project machine

/** A real thread that runs the filter regex as the app's worker does (here: node, not a browser). */
const SEARCH = `const { parentPort } = require('node:worker_threads')
parentPort.on('message', ({ pattern, tags }) => {
  const re = new RegExp(pattern, 'i')
  parentPort.postMessage({ pattern, tags: tags.filter((t) => re.test(t)) })
})`
const spawned: { terminated: boolean }[] = []
function threadWorker(): WorkerLike {
  const w = new Worker(SEARCH, { eval: true })
  const state = { terminated: false }
  spawned.push(state)
  const like: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage: (m) => w.postMessage(m),
    terminate: () => {
      state.terminated = true
      void w.terminate()
    },
  }
  w.on('message', (data: MatchResult) => like.onmessage?.({ data }))
  w.on('error', (e) => like.onerror?.(e))
  return like
}

describe('filterTags', () => {
  it('matches as a case-insensitive regex, or as plain text when the regex is invalid', async () => {
    expect(await filterTags(TAGS, 'loss/.*', threadWorker)).toEqual({ tags: ['loss/train', 'Loss/valid'], invalid: false, slow: false })
    expect(await filterTags(TAGS, 'train$|^lr', threadWorker)).toMatchObject({ tags: ['loss/train', 'accuracy/train', 'lr'] })
    expect(await filterTags(TAGS, 'loss/(', threadWorker)).toEqual({ tags: [], invalid: true, slow: false })
    expect(await filterTags(['a(b', 'ab'], 'A(', threadWorker)).toEqual({ tags: ['a(b'], invalid: true, slow: false })
  })

  it('answers plain text and empty filters at once, without a worker', () => {
    expect(filterTagsNow(TAGS, ' LOSS ')).toEqual({ tags: ['loss/train', 'Loss/valid'], invalid: false, slow: false })
    expect(filterTagsNow(TAGS, '')).toEqual({ tags: TAGS, invalid: false, slow: false })
    expect(filterTagsNow(TAGS, 'a'.repeat(600))).toMatchObject({ tags: [], invalid: true }) // too long for a regex
    expect(filterTagsNow(TAGS, 'loss.*')).toBeNull() // a real regex: for the worker
  })

  it('never runs a catastrophic filter on the calling thread, and stops it after the time limit', async () => {
    const t0 = performance.now()
    const res = await filterTags([...TAGS, EVIL_TAG], '(a+)+$', threadWorker, 150)
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(res).toEqual({ tags: [], invalid: false, slow: true }) // matched as plain text instead
    expect(spawned.at(-1)?.terminated).toBe(true)
  })
})

describe('useTagFilter', () => {
  it('follows the filter and the tags, shares one worker run per (filter, tags) and keeps the page free', async () => {
    let runs = 0
    const counting = (): WorkerLike => (runs++, threadWorker())
    const tags = ref([...TAGS, EVIL_TAG])
    const filter = ref('(a+)+$')
    const t0 = performance.now()
    const a = useTagFilter(() => tags.value, () => filter.value, counting, 150)
    const b = useTagFilter(() => tags.value, () => filter.value, counting, 150)
    expect(performance.now() - t0).toBeLessThan(500)
    expect(a.value.pending).toBe(true)
    await expect.poll(() => a.value.slow, { timeout: 2000, interval: 20 }).toBe(true)
    await expect.poll(() => b.value.slow, { timeout: 2000, interval: 20 }).toBe(true)
    expect(runs).toBe(1)
    tags.value = [...tags.value] // a refresh: same tags, new array: no new run
    await nextTick()
    expect(runs).toBe(1)
    filter.value = 'valid'
    await nextTick()
    expect(a.value).toEqual({ tags: ['Loss/valid'], invalid: false, slow: false })
  })
})
