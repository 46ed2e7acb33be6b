import { describe, expect, it } from 'vitest'
import { blocksOf } from './useServerTagList'
import { serverTagSearch } from '@/lib/tagFilter'

describe('serverTagSearch', () => {
  it('sends a literal as q and a pattern with regex syntax as regex', () => {
    expect(serverTagSearch('  ')).toEqual({})
    expect(serverTagSearch(' layer_12 ')).toEqual({ q: 'layer_12' })
    expect(serverTagSearch('expert_load/layer_\\d+/')).toEqual({ regex: 'expert_load/layer_\\d+/' })
    expect(serverTagSearch('a(')).toEqual({ regex: 'a(' }) // the server matches it as text and says invalid
  })
})

describe('blocksOf', () => {
  it('lists the blocks a row range falls in', () => {
    expect(blocksOf(0, 0)).toEqual([])
    expect(blocksOf(0, 12)).toEqual([0])
    expect(blocksOf(190, 212)).toEqual([0, 1])
    expect(blocksOf(4990, 5000)).toEqual([24])
    expect(blocksOf(-5, 10, 5)).toEqual([0, 1])
  })
})
