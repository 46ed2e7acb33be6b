import { afterEach, describe, expect, it } from 'vitest'
import { lang, tn } from './index'
import { en } from './en'
import { zh } from './zh'

describe('tn (counts in words)', () => {
  afterEach(() => {
    lang.value = 'en-us'
  })
  it('says "1 entry" and "2 entries" in English', () => {
    lang.value = 'en-us'
    expect(tn('summary.count', 1)).toBe('1 entry')
    expect(tn('summary.count', 2)).toBe('2 entries')
    expect(tn('summary.count', 0)).toBe('0 entries')
    expect(tn('summary.count', 10000)).toBe('10,000 entries')
    expect(tn('graph.nodes', 1)).toBe('1 node')
  })
  it('uses the one Chinese form for every count', () => {
    lang.value = 'zh-cn'
    expect(tn('summary.count', 1)).toBe('共 1 项')
    expect(tn('summary.count', 3)).toBe('共 3 项')
  })
  it('has a Chinese string for every singular English one, and no "(s)" plural left', () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      if (key.endsWith('.one')) expect(zh[key], key).toBeTruthy()
    }
    const generic = Object.entries(en).filter(([k, v]) => /[a-z]\(s\)/.test(v) && !k.startsWith('profiler.') && !k.startsWith('ascend.'))
    expect(generic).toEqual([])
  })
})
