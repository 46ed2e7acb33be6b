import { describe, expect, it } from 'vitest'
import { hasFinalLandscape, landscapeQuery, landscapeSelection } from './landscapeSelection'

const iv = [{ id: 'a', value: [1, 3] }, { id: 'b', value: [3, 6] }]

describe('landscape selection', () => {
  it('keeps a valid URL choice, else falls back to the first interval, then final', () => {
    expect(landscapeSelection('1', iv, true)).toBe('1')
    expect(landscapeSelection('final', iv, true)).toBe('final')
    expect(landscapeSelection('final', iv, false)).toBe('0')
    expect(landscapeSelection('7', iv, true)).toBe('0')
    expect(landscapeSelection('x', [], true)).toBe('final')
    expect(landscapeSelection('', [], false)).toBe('')
  })
  it('knows a final landscape by its tag and builds the query', () => {
    expect(hasFinalLandscape(['landscape_[1, 3]', 'landscape_[6]'])).toBe(true)
    expect(hasFinalLandscape(['landscape_[1, 3]'])).toBe(false)
    expect(landscapeQuery('./r', '1', iv)).toEqual({ train_id: ['./r'], type: 'interval', interval_id: 'b' })
    expect(landscapeQuery('./r', 'final', iv)).toEqual({ train_id: ['./r'], type: 'final' })
  })
})
