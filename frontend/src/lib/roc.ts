// PR and ROC curves from the counts of a `pr-curves` step (tensorboardX add_pr_curve: one entry per threshold).
// ROC comes from the same counts: TPR = tp / (tp + fn), FPR = fp / (fp + tn). A ratio whose denominator is 0
// is undefined (null) and left out of the curve and of the area.
import type { PrCurve } from '@/api/types'

export interface CurvePoint {
  x: number
  y: number
  threshold: number
  tp: number
  fp: number
  tn: number
  fn: number
}

function ratio(a: number, b: number): number | null {
  const d = a + b
  return d > 0 && Number.isFinite(d) ? a / d : null
}

/** ROC points (x = FPR, y = TPR), one per threshold with both defined, in threshold order. */
export function rocPoints(c: PrCurve): CurvePoint[] {
  const out: CurvePoint[] = []
  for (let i = 0; i < c.thresholds.length; i++) {
    const tpr = ratio(c.tp[i], c.fn[i])
    const fpr = ratio(c.fp[i], c.tn[i])
    if (tpr === null || fpr === null) continue
    out.push({ x: fpr, y: tpr, threshold: c.thresholds[i], tp: c.tp[i], fp: c.fp[i], tn: c.tn[i], fn: c.fn[i] })
  }
  return out
}

/** PR points (x = recall, y = precision) as written; a threshold with no predicted positive has no precision. */
export function prPoints(c: PrCurve): CurvePoint[] {
  const out: CurvePoint[] = []
  for (let i = 0; i < c.thresholds.length; i++) {
    if (c.tp[i] + c.fp[i] <= 0) continue
    const precision = c.precision[i]
    const recall = c.recall[i]
    if (!Number.isFinite(precision) || !Number.isFinite(recall)) continue
    out.push({ x: recall, y: precision, threshold: c.thresholds[i], tp: c.tp[i], fp: c.fp[i], tn: c.tn[i], fn: c.fn[i] })
  }
  return out
}

/**
 * Area under a curve by the trapezoid rule over its points sorted by x, with the ends (0, 0) and (1, 1) of a
 * ROC curve added when `roc` (every ROC curve runs from "all negative" to "all positive"). Null with < 2 points.
 */
export function area(points: CurvePoint[], roc = false): number | null {
  const pts = points.map((p) => [p.x, p.y] as [number, number])
  if (roc) pts.push([0, 0], [1, 1])
  if (pts.length < 2) return null
  pts.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let sum = 0
  for (let i = 1; i < pts.length; i++) sum += ((pts[i][0] - pts[i - 1][0]) * (pts[i][1] + pts[i - 1][1])) / 2
  return sum
}
