import { beforeAll, describe, expect, it, vi } from 'vitest'

// the i18n module reads the browser's language: English here
let hintText: typeof import('./profilerLabels').hintText
beforeAll(async () => {
  vi.stubGlobal('navigator', { language: 'en-US' })
  ;({ hintText } = await import('./profilerLabels'))
})

describe('hintText', () => {
  it('words an overview hint in the UI language from its code and args', () => {
    const h = hintText({ code: 'few_steps', message: 'server sentence', args: { steps: 2 } })
    expect(h.title).not.toBe('few_steps')
    expect(h.text).toContain('2')
    expect(h.text).not.toBe('server sentence')
  })
  it("titles an advice rule's finding (Ascend overview) by its rule and keeps the server's sentence", () => {
    expect(hintText({ code: 'free_time', message: 'Rank 0 is free 18.9 %' })).toEqual({
      title: 'Free time above 10 % of the step',
      text: 'Rank 0 is free 18.9 %',
    })
  })
  it('shows an unknown code as it is', () => {
    expect(hintText({ code: 'new_rule', message: 'm' })).toEqual({ title: 'new_rule', text: 'm' })
  })
})
