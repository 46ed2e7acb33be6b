import { describe, expect, it } from 'vitest'
import { dashboardScalarTags } from './scalarPick'

describe('dashboardScalarTags', () => {
  it('draws the loss first, then the next tag in the server order', () => {
    const tags = ['eval/accuracy/scalar', 'learning_rate/scalar', 'loss/auto/scalar', 'train/accuracy/scalar']
    expect(dashboardScalarTags(tags)).toEqual(['loss/auto/scalar', 'eval/accuracy/scalar'])
  })
  it('keeps the server order without a loss, and takes what there is', () => {
    expect(dashboardScalarTags(['a/scalar', 'b/scalar', 'c/scalar'])).toEqual(['a/scalar', 'b/scalar'])
    expect(dashboardScalarTags(['x/scalar'])).toEqual(['x/scalar'])
    expect(dashboardScalarTags(['train/loss/scalar', 'eval/Loss/scalar', 'lr/scalar'])).toEqual(['train/loss/scalar', 'eval/Loss/scalar'])
  })
})
