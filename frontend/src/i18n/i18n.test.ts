import { describe, expect, it } from 'vitest'
import { en, type MessageKey } from './en'
import { zh } from './zh'

describe('i18n', () => {
  it('has a Chinese text for every English one, with the same placeholders', () => {
    const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    const missing: string[] = []
    const mismatched: string[] = []
    for (const key of Object.keys(en) as MessageKey[]) {
      const text = zh[key]
      if (text === undefined) missing.push(key)
      else if (JSON.stringify(placeholders(text)) !== JSON.stringify(placeholders(en[key]))) mismatched.push(key)
    }
    expect(missing).toEqual([])
    expect(mismatched).toEqual([])
  })
})
