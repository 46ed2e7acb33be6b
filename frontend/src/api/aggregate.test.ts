import { afterEach, describe, expect, it, vi } from 'vitest'
import { aggregateUrl } from './aggregate'

describe('aggregate URL', () => {
  afterEach(() => vi.unstubAllGlobals())
  it('is relative to the page, so the app works under a URL path prefix, and carries the whole query', () => {
    vi.stubGlobal('document', { baseURI: 'http://host:8080/prefix/app/' })
    const url = new URL(
      aggregateUrl({ trainIds: ['./a', './b'], tag: 'loss/scalar', groupBy: 'regex:^(lr[0-9.]+)_', stat: 'median', band: 'sem', maxPoints: 612.4 }),
    )
    expect(url.pathname).toBe('/prefix/app/v1/mindinsight/datavisual/scalars/aggregate')
    expect(Object.fromEntries(url.searchParams)).toEqual({
      train_ids: './a,./b', tag: 'loss/scalar', group_by: 'regex:^(lr[0-9.]+)_', stat: 'median', band: 'sem', max_points: '612',
    })
  })
  it('asks for at least the server minimum of 4 points', () => {
    vi.stubGlobal('document', { baseURI: 'http://host/' })
    const q = { trainIds: ['a'], tag: 't', groupBy: 'rank_group', stat: 'mean' as const, band: 'minmax' as const, maxPoints: 0 }
    expect(new URL(aggregateUrl(q)).searchParams.get('max_points')).toBe('4')
  })
})
