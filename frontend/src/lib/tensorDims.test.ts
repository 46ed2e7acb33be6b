import { describe, expect, it } from 'vitest'
import { defaultDims, dimsString, parseDimsString, selectionSize, validateDims } from './tensorDims'

describe('tensor dims', () => {
  it('defaults to the last two axes', () => {
    expect(dimsString(defaultDims([3, 4, 5]))).toBe('[0,:,:]')
    expect(dimsString(defaultDims([7]))).toBe('[:]')
  })
  it('validates', () => {
    expect(validateDims(['0', ':', ':'], [3, 4, 5])).toBeNull()
    expect(validateDims([':', ':', ':'], [3, 4, 5])).toBe('slices')
    expect(validateDims(['3', ':', ':'], [3, 4, 5])).toBe('range')
    expect(validateDims(['-1', ':', ':'], [3, 4, 5])).toBeNull()
    expect(validateDims(['x', ':', ':'], [3, 4, 5])).toBe('syntax')
    expect(validateDims([':', ':'], [3, 4, 5])).toBe('rank')
  })
  it('parses', () => {
    expect(parseDimsString('[1, :, :]', 3)).toEqual(['1', ':', ':'])
    expect(parseDimsString('[1,:]', 3)).toBeNull()
  })
  it('takes numpy slices start:stop[:step] as datavisual and debugger/tensor do', () => {
    expect(validateDims(['0', '0', ':10', '2:12'], [4, 6, 28, 28])).toBeNull()
    expect(validateDims(['0', ':', '::2', ':'], [4, 6, 28, 28])).toBe('slices')
    expect(validateDims(['0', '0', '1:5:0', ':'], [4, 6, 28, 28])).toBe('syntax')
    expect(validateDims(['0', '0', '1:2:3:4', ':'], [4, 6, 28, 28])).toBe('syntax')
    expect(parseDimsString('[0, 0, :10, :10]', 4)).toEqual(['0', '0', ':10', ':10'])
  })
  it('counts the values a selection reads as numpy slices them', () => {
    // numpy: np.zeros((4, 6, 28, 28))[0, 0, :10, 2:12].size == 100; [..., -5:, ::3] -> 5 * 10
    expect(selectionSize(['0', '0', ':10', '2:12'], [4, 6, 28, 28])).toBe(100)
    expect(selectionSize(['0', '0', '-5:', '::3'], [4, 6, 28, 28])).toBe(50)
    expect(selectionSize([':', ':'], [120, 400])).toBe(48000)
    expect(selectionSize(['::-1', '10:100'], [7, 20])).toBe(70) // reversed: 7; 10:100 clipped to 10
    expect(selectionSize(['5:2', ':'], [7, 3])).toBe(0)
    expect(selectionSize(['x'], [3])).toBeNull()
  })
})
