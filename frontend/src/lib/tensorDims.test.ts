import { describe, expect, it } from 'vitest'
import { defaultDims, dimsString, parseDimsString, validateDims } from './tensorDims'

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
})
