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
      trainJobs: async (q: { train_id: string }) => (
        calls.push(`jobs ${q.train_id}`), { train_jobs: q.train_id === './gone' ? [] : [{ train_id: q.train_id }] }
      ),
      plugins: async (id: string) => (calls.push(`plugins ${id}`), { plugins: { scalar: ['loss'] } }),
    },
  }
})

const { startRunPrefetch, takeRunPrefetch } = await import('./runPrefetch')

afterEach(() => {
  calls.length = 0
  vi.useRealTimers()
  takeRunPrefetch('./a')
})

describe('runPrefetch', () => {
  it('asks for the cache and the listing at once, the tags once listed, and hands them out once', async () => {
    startRunPrefetch('./a')
    expect(calls).toEqual(['cache ./a', 'jobs ./a']) // both before any answer
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

  it('gives nothing for another run or after the answers went stale', () => {
    vi.useFakeTimers()
    startRunPrefetch('./a')
    expect(takeRunPrefetch('./b')).toBeNull()
    vi.advanceTimersByTime(6000)
    expect(takeRunPrefetch('./a')).toBeNull()
  })
})
