import { afterEach, describe, expect, it, vi } from 'vitest'

const calls: string[] = []
vi.mock('@/api/client', () => {
  class ApiError extends Error {
    constructor(
      public kind: string,
      message: string,
      public code = '',
    ) {
      super(message)
    }
  }
  return {
    ApiError,
    api: {
      cacheTrainJobs: async (ids: string[]) => (calls.push(`cache ${ids[0]}`), { cache_result: [] }),
      trainJobs: async (q: { train_id: string; tag_limit?: number }) => (
        calls.push(`jobs ${q.train_id} tag_limit=${q.tag_limit}`), { train_jobs: q.train_id === './gone' ? [] : [JOBS[q.train_id] ?? { train_id: q.train_id }] }
      ),
      plugins: async (id: string, _m: boolean, _o: unknown, tagLimit?: number) => (
        calls.push(`plugins ${id}${tagLimit === undefined ? '' : ` tag_limit=${tagLimit}`}`), { plugins: { scalar: ['loss'] } }
      ),
    },
  }
})

// listing items as `train-jobs?tag_limit=` answers them: a cached run with whole lists, one with a cut list
const JOBS: Record<string, object> = {
  './whole': { train_id: './whole', cache_status: 'CACHED', plugins: { scalar: ['a', 'b'] }, tag_counts: { scalar: 2 } },
  './big': { train_id: './big', cache_status: 'CACHED', plugins: { scalar: ['a', 'b'] }, tag_counts: { scalar: 10000 }, samples_twins: { a: 'b' } },
}

const { startRunPrefetch, takeRunPrefetch, isTruncated, TAG_LIMIT } = await import('./runPrefetch')

afterEach(() => {
  calls.length = 0
  vi.useRealTimers()
  takeRunPrefetch('./a')
})

describe('runPrefetch', () => {
  it('asks for the cache and the listing at once, the tags once listed, and hands them out once', async () => {
    startRunPrefetch('./a')
    expect(calls).toEqual(['cache ./a', `jobs ./a tag_limit=${TAG_LIMIT}`]) // both before any answer
    const pre = takeRunPrefetch('./a')
    expect(pre).not.toBeNull()
    expect(await pre!.plugins).toEqual({ plugins: { scalar: ['loss'] } })
    expect(calls).toContain('plugins ./a')
    expect(takeRunPrefetch('./a')).toBeNull() // a second page load asks the server itself
  })

  it('does not ask for the tags of a run the server does not list (a 400 in the console)', async () => {
    startRunPrefetch('./gone')
    const pre = takeRunPrefetch('./gone')
    expect(await pre!.plugins).toBeNull()
    expect(calls).not.toContain('plugins ./gone')
  })

  it("takes a cached run's tags from its listing item: no plugins request when its lists are whole", async () => {
    startRunPrefetch('./whole')
    const pre = takeRunPrefetch('./whole')
    expect((await pre!.plugins)?.plugins).toEqual({ scalar: ['a', 'b'] })
    expect(calls.filter((c) => c.startsWith('plugins'))).toEqual([])
  })

  it('a page that takes cut lists gets them with their counts; another page asks for the whole lists', async () => {
    startRunPrefetch('./big', true)
    const cut = await takeRunPrefetch('./big')!.plugins
    expect(cut).toMatchObject({ plugins: { scalar: ['a', 'b'] }, tag_counts: { scalar: 10000 }, samples_twins: { a: 'b' } })
    expect(isTruncated(cut!)).toBe(true)
    expect(calls.filter((c) => c.startsWith('plugins'))).toEqual([])
    calls.length = 0
    vi.useFakeTimers()
    vi.advanceTimersByTime(6000) // the first prefetch went stale: a new navigation asks again
    vi.useRealTimers()
    startRunPrefetch('./big')
    await takeRunPrefetch('./big')!.plugins
    expect(calls).toContain('plugins ./big') // whole: no tag_limit
  })

  it('gives nothing for another run or after the answers went stale', () => {
    vi.useFakeTimers()
    startRunPrefetch('./a')
    expect(takeRunPrefetch('./b')).toBeNull()
    vi.advanceTimersByTime(6000)
    expect(takeRunPrefetch('./a')).toBeNull()
  })
})
