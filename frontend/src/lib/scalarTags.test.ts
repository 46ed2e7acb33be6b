import { describe, expect, it } from 'vitest'
import { groupMemberTags, visibleScalarTags } from './scalarTags'

describe('visibleScalarTags', () => {
  const tags = [
    'batch-size/scalar',
    'batch-size_vs_samples/scalar',
    'expert_load/layer_3/ep_0/scalar',
    'expert_load/layer_3/ep_1/scalar',
    'grad-norm/scalar',
    'iteration-time/scalar',
    'lm loss vs samples/scalar',
    'lm loss/scalar',
  ]
  const extras = {
    samples_twins: { 'batch-size/scalar': 'batch-size_vs_samples/scalar', 'lm loss/scalar': 'lm loss vs samples/scalar' },
    scalar_groups: { 'expert_load/layer_3': ['ep_0', 'ep_1'] },
  }
  it('hides the twins and the group series, listing each group once', () => {
    expect(visibleScalarTags(tags, extras)).toEqual(['batch-size/scalar', 'expert_load/layer_3', 'grad-norm/scalar', 'iteration-time/scalar', 'lm loss/scalar'])
    expect(groupMemberTags(extras).get('expert_load/layer_3')).toEqual(['expert_load/layer_3/ep_0/scalar', 'expert_load/layer_3/ep_1/scalar'])
  })
  it('leaves a run without companions as it is', () => {
    expect(visibleScalarTags(tags, {})).toEqual(tags)
  })
})
