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
    // issue 34's "1 tags", "3 step(s)", "1 workers"
    expect(tn('common.droppedTags', 1)).toBe('1 tag not loaded')
    expect(tn('ascend.steps', 1)).toBe('1 step')
    expect(tn('ascend.steps', 3)).toBe('3 steps')
    expect(tn('legacy.cpuOp', 1, { id: 3 })).toBe('operator 3 (1 worker)')
    expect(tn('debugger.tensorCount', 1, { i: 2 })).toBe('1 tensor in iteration 2')
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
    const generic = Object.entries(en).filter(([, v]) => /[a-z]\(s\)/.test(v))
    expect(generic).toEqual([])
  })
})
