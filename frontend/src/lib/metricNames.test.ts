import { afterEach, describe, expect, it } from 'vitest'
import { lang } from '@/i18n'
import { lineageParamLabel, metricLabel } from './metricNames'

describe('metricLabel', () => {
  afterEach(() => {
    lang.value = 'en-us'
  })
  it('translates well-known metric names and keeps the others as written', () => {
    lang.value = 'zh-cn'
    expect(metricLabel('accuracy')).toBe('准确率')
    expect(metricLabel('Accuracy')).toBe('准确率')
    expect(metricLabel('top_5_accuracy')).toBe('Top-5 准确率')
    expect(metricLabel('loss')).toBe('损失')
    expect(metricLabel('my_score')).toBe('my_score')
    lang.value = 'en-us'
    expect(metricLabel('accuracy')).toBe('Accuracy')
    expect(metricLabel('f1_score')).toBe('F1 score')
  })
  it('labels the names of parameter importance like the table', () => {
    lang.value = 'zh-cn'
    expect(lineageParamLabel('[M]accuracy')).toBe('[M]准确率')
    expect(lineageParamLabel('learning_rate')).toBe('学习率')
    expect(lineageParamLabel('[U]seed')).toBe('[U]seed')
    expect(lineageParamLabel('no_such_field')).toBe('no_such_field')
  })
})
