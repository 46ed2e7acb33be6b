import { describe, expect, it } from 'vitest'
import { wrapText } from './wrapText'

const chars = (s: string) => s.length * 7 // 7 px a character

describe('wrapText', () => {
  it('keeps a text that fits on one line', () => {
    expect(wrapText('Epoch', 70, chars)).toEqual(['Epoch'])
  })
  it('breaks between words first', () => {
    expect(wrapText('Training dataset count', 70, chars)).toEqual(['Training', 'dataset', 'count'])
    expect(wrapText('Training dataset count', 105, chars)).toEqual(['Training', 'dataset count'])
  })
  it('cuts a word longer than the line between characters, losing nothing', () => {
    const lines = wrapText('[U]a_very_long_user_defined_name', 70, chars)
    expect(lines.every((l) => chars(l) <= 70)).toBe(true)
    expect(lines.join('')).toBe('[U]a_very_long_user_defined_name')
  })
  it('cuts an identifier after its separators rather than mid-word', () => {
    expect(wrapText('[U]batch_size', 70, chars)).toEqual(['[U]batch_', 'size'])
    expect(wrapText('train/loss/scalar', 84, chars)).toEqual(['train/loss/', 'scalar'])
    expect(wrapText('abcdefghijklmn', 70, chars)).toEqual(['abcdefghij', 'klmn']) // none: between characters
  })
  it('returns one empty line for an empty text', () => {
    expect(wrapText('', 50, chars)).toEqual([''])
  })
})
