// Debiased exponential moving average, weighted by step distance.
//
// TensorBoard smooths with `last = last * w + (1 - w) * y` once per *sampled point*, then
// divides by `1 - w^n` (debiasing, so the curve does not start at 0). That makes the curve
// depend on how many points the server kept: a run sub-sampled to 1000 points by the
// reservoir is smoothed very differently from the same run with every step kept.
//
// Here the decay between two consecutive points is `w^(dx / scale)`, where `dx` is their
// distance in steps and `scale` is a fixed step span (by default the run's step range / 999,
// at least 1). So:
//   * a point that is far away in steps weighs less, whatever was sampled between;
//   * evenly spaced data with 1000 points gives exactly TensorBoard's curve;
//   * dropping or adding samples does not change the shape of the curve.
// Debiasing is generalised accordingly: the running average is divided by the total weight
// accumulated so far (1 - product of the decays), which equals TensorBoard's `1 - w^n` on
// evenly spaced data. Points whose value is null (NaN/Inf on the server) are passed through
// as null and do not touch the average.

/** The default step scale: step range / 999, at least 1. */
export function defaultScale(xs: number[]): number {
  if (xs.length < 2) return 1
  let min = Infinity
  let max = -Infinity
  for (const x of xs) {
    if (x < min) min = x
    if (x > max) max = x
  }
  return Math.max(1, (max - min) / 999)
}

/** The running state of the average after some points: carried into a zoomed window so it continues the curve. */
export interface SmoothState {
  acc: number
  total: number
  prevX: number | null
}

/**
 * Smooths `ys` given at positions `xs` (ascending). `weight` in [0, 1): 0 = no smoothing.
 * `scale` is the step distance over which one full `weight` of decay applies. `from`: the state the average
 * starts in (default: empty); it is updated in place.
 */
export function smooth(
  xs: number[],
  ys: (number | null)[],
  weight: number,
  scale?: number,
  from?: SmoothState,
): (number | null)[] {
  const n = ys.length
  const out: (number | null)[] = new Array(n)
  const w = Math.min(Math.max(weight, 0), 0.999)
  if (w === 0) {
    for (let i = 0; i < n; i++) out[i] = ys[i]
    return out
  }
  const s = scale && scale > 0 ? scale : defaultScale(xs)
  const st = from ?? { acc: 0, total: 0, prevX: null }
  for (let i = 0; i < n; i++) {
    const y = ys[i]
    if (y === null || !Number.isFinite(y)) {
      out[i] = null
      continue
    }
    const x = xs[i]
    const dx = st.prevX === null ? 1 : Math.max(0, x - st.prevX) / s
    const decay = st.prevX === null ? w : Math.pow(w, dx)
    st.acc = st.acc * decay + (1 - decay) * y // biased running average
    st.total = st.total * decay + (1 - decay) // accumulated weight, 1 - prod(decays)
    st.prevX = x
    out[i] = st.total > 0 ? st.acc / st.total : y
  }
  return out
}

/**
 * Smooths a window (`xs`, `ys`: e.g. the real points of a zoomed step range) as part of its whole series
 * (`fullXs`, `fullYs`, possibly sampled): the average runs over the series' points before the window, then on
 * through the window, with the series' `scale`. Zooming then only magnifies the curve: a step's smoothed value
 * does not depend on where the window starts.
 */
export function smoothWindow(
  fullXs: number[],
  fullYs: (number | null)[],
  xs: number[],
  ys: (number | null)[],
  weight: number,
  scale: number,
): (number | null)[] {
  const state: SmoothState = { acc: 0, total: 0, prevX: null }
  const start = xs.length ? xs[0] : Infinity
  let k = 0
  while (k < fullXs.length && fullXs[k] < start) k++
  smooth(fullXs.slice(0, k), fullYs.slice(0, k), weight, scale, state)
  return smooth(xs, ys, weight, scale, state)
}
