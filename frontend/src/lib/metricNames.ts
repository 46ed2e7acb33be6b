// Names of well-known evaluation metrics in the UI's language. MindSpore records metrics under the names the
// training script gave them (`accuracy`, `top_1_accuracy`, `loss`, ...); the lineage and landscape pages show a
// translated label for the ones known here and the raw key in a tooltip, and any other name as it was written.
import { en } from '@/i18n/en'
import { t, type MessageKey } from '@/i18n'

const KNOWN: Record<string, MessageKey> = {
  accuracy: 'metric.accuracy',
  acc: 'metric.accuracy',
  top1accuracy: 'metric.top1',
  top5accuracy: 'metric.top5',
  loss: 'metric.loss',
  precision: 'metric.precision',
  recall: 'metric.recall',
  f1: 'metric.f1',
  f1score: 'metric.f1',
  auc: 'metric.auc',
  mae: 'metric.mae',
  mse: 'metric.mse',
  rmse: 'metric.rmse',
  perplexity: 'metric.perplexity',
  bleu: 'metric.bleu',
  dice: 'metric.dice',
}

/** The metric's label in the current language, or `name` itself when it is not a well-known metric. */
export function metricLabel(name: string): string {
  const key = KNOWN[name.toLowerCase().replace(/[^a-z0-9]/g, '')]
  return key ? t(key) : name
}

/**
 * A name of `optimizer/targets/search` (`[M]accuracy`, `[U]seed`, `learning_rate`, `loss`) as the lineage table
 * labels it: metrics and model-lineage fields in the UI's language, user-defined names as written.
 */
export function lineageParamLabel(name: string): string {
  if (name.startsWith('[M]')) return `[M]${metricLabel(name.slice(3))}`
  const field = `lineage.field.${name}`
  return field in en ? t(field as MessageKey) : name
}
