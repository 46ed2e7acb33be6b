import { describe, expect, it } from 'vitest'
import { findTagFamilies } from './tagFamilies'

const layers = (n: number, fmt = (i: number) => `local_norm/layer_${i}/weight`) => Array.from({ length: n }, (_, i) => fmt(i))

describe('findTagFamilies', () => {
  it('finds 64 per-layer tags as one family, in numeric order', () => {
    const tags = [...layers(64)].reverse()
    const [f, ...rest] = findTagFamilies(['loss', ...tags])
    expect(rest).toEqual([])
    expect(f.pattern).toBe('local_norm/layer_#/weight')
    expect(f.members.map((m) => m.index).slice(0, 12)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11'])
    expect(f.members).toHaveLength(64)
    expect(f.members[63]).toEqual({ tag: 'local_norm/layer_63/weight', index: '63' })
  })

  it('drops families under the minimum and tags without a number', () => {
    expect(findTagFamilies(['a/1', 'a/2', 'a/3', 'loss', 'lr'])).toEqual([])
    expect(findTagFamilies(['a/1', 'a/2', 'a/3', 'a/4'])).toHaveLength(1)
    expect(findTagFamilies(['a/1', 'a/2', 'a/3'], 3)).toHaveLength(1)
  })

  it('tags differing by two numbers: one family per fixed other number', () => {
    const tags: string[] = []
    for (let l = 0; l < 2; l++) for (let e = 0; e < 5; e++) tags.push(`moe/layer_${l}/expert_${e}/load`)
    const fams = findTagFamilies(tags)
    // experts of layer 0 and of layer 1 (5 each); the layer families have 2 members only
    expect(fams.map((f) => f.pattern)).toEqual(['moe/layer_0/expert_#/load', 'moe/layer_1/expert_#/load'])
  })

  it('the regex is anchored, escapes special characters and matches exactly the members', () => {
    const tags = layers(5, (i) => `grad.norm[${i}] (x+y)/scalar`)
    const [f] = findTagFamilies([...tags, 'grad.norm[1] (x+y)/scalar_extra', 'gradXnorm[1] (x+y)/scalar'])
    const re = new RegExp(f.regex)
    expect(f.members.map((m) => m.tag)).toEqual(tags)
    expect(tags.every((t) => re.test(t))).toBe(true)
    expect(re.test('grad.norm[1] (x+y)/scalar_extra')).toBe(false)
    expect(re.test('gradXnorm[1] (x+y)/scalar')).toBe(false)
  })

  it('orders leading-zero and long numbers numerically, largest family first', () => {
    const big = ['p/10', 'p/9', 'p/100000000000000000001', 'p/007', 'p/8']
    const fams = findTagFamilies([...big, 'q1', 'q2', 'q3', 'q4'])
    expect(fams[0].members.map((m) => m.index)).toEqual(['007', '8', '9', '10', '100000000000000000001'])
    expect(fams[1].pattern).toBe('q#')
  })

  it('one number among several digit runs that are all fixed still forms the family', () => {
    const tags = layers(4, (i) => `v2/block_${i}/fp16`)
    const fams = findTagFamilies(tags)
    expect(fams.map((f) => f.pattern)).toEqual(['v2/block_#/fp16'])
  })
})
