// Labels of a value axis drawn over exactly the data's extent (min/max = the data's, no blank margin). ECharts
// labels nice ticks (every `interval`) and, besides them, the extent's own ends; an end a little way from a tick
// then crowds it ("-0.2635 -0.2", "0.3 0.3629", "-0.3762 -0.3": issue 21). Here the interval ECharts picks is
// computed the way it does (IntervalScale: the span cut into splitNumber = 5 parts, rounded to 1, 2, 3 or 5 × 10^k;
// the ticks are its multiples), and an end label is dropped when it lies within EDGE_ROOM intervals of its
// neighbouring tick: with 1, an end keeps its label only where it is a tick itself (the last step, 3k), since an
// end closer than a whole interval to a tick crowds it at some chart width. The axis keeps ECharts' own ticks
// (setting `interval` would start them at the data's minimum). Pure; tested in axisEdges.test.ts.

export const EDGE_ROOM = 1

/** ECharts' nice tick step for `span` cut into about `parts` parts. */
export function niceInterval(span: number, parts = 5): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1
  const raw = span / parts
  const exp = 10 ** Math.floor(Math.log10(raw))
  const f = raw / exp
  const nf = f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10
  return nf * exp
}

/** `interval` and a label formatter for an axis spanning [min, max] whose ends are labelled only with room. */
export function edgeAwareLabels(
  min: number,
  max: number,
  format: (v: number) => string,
  parts = 5,
): { interval: number; formatter: (v: number) => string } {
  const interval = niceInterval(max - min, parts)
  const eps = interval * 1e-9
  const firstTick = Math.ceil((min - eps) / interval) * interval
  const lastTick = Math.floor((max + eps) / interval) * interval
  const crowdsStart = firstTick - min > eps && firstTick - min < EDGE_ROOM * interval && firstTick <= max
  const crowdsEnd = max - lastTick > eps && max - lastTick < EDGE_ROOM * interval && lastTick >= min
  return {
    interval,
    formatter: (v: number) => {
      if (crowdsStart && Math.abs(v - min) <= eps) return ''
      if (crowdsEnd && Math.abs(v - max) <= eps) return ''
      return format(v)
    },
  }
}
