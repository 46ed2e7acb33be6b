import { describe, expect, it } from 'vitest'
import { classifyText, textKey } from './textKinds'

const item = (value: string, extra = {}) => ({ step: 1, wall_time: 0, value, ...extra })

describe('classifyText', () => {
  it('tells configs, arguments and markdown apart', () => {
    expect(classifyText('model/text_summary', item("{'model_config': {'hidden_size': 4096}}")).kind).toBe('config')
    expect(classifyText('lr/text_summary', item('0.0003'))).toMatchObject({ kind: 'arg', key: 'lr' })
    expect(classifyText('betas/text_summary', item('[0.9, 0.95]')).kind).toBe('arg') // a short list is one argument
    expect(classifyText('empty/text_summary', item('{}')).kind).toBe('arg')
    expect(classifyText('callbacks/text_summary', item("[{'type': 'MFLossMonitor'}, {'type': 'ObsMonitor'}]")).kind).toBe('config')
    expect(classifyText('notes/text_summary', item('### Eval\n\n| a | b |\n|---|---|\n| 1 | 2 |\n')).kind).toBe('markdown')
    expect(classifyText('tf2/run_note', item('a TF2 note')).key).toBe('tf2/run_note') // no suffix: the tag
  })

  it('shows a dict that does not parse as text, with the reason', () => {
    const e = classifyText('model/text_summary', item("{'model': {'hidden_size': 4096, 'layers': "))
    expect(e.kind).toBe('markdown')
    expect(e.kind === 'markdown' && e.parseError).toMatch(/unexpected end of text/)
    const cut = classifyText('x/text_summary', item("{'a': 1, 'b'", { truncated: true, length: 500000 }))
    expect(cut.kind).toBe('markdown')
  })

  it('names keys as text/compare does', () => {
    expect(textKey('seed/text_summary')).toBe('seed')
    expect(textKey('/text_summary')).toBe('/text_summary')
  })
})
