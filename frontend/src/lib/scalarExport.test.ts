import { describe, expect, it } from 'vitest'
import type { ScalarPoint } from '@/api/types'
import type { WindowAnswer } from '@/charts/scalarOption'
import { MIN_POINTS, exportFileName, fetchAllPoints, fetchExport, summarizeExport, type WindowFetch } from './scalarExport'

/** M4 as the server does it: per equal-width step bucket the first, last, min and max point, in step order. */
function m4(pts: ScalarPoint[], points: number): ScalarPoint[] {
  const buckets = Math.max(1, Math.floor(points / 4))
  const lo = pts[0].step
  const width = (pts[pts.length - 1].step - lo + 1) / buckets
  const keep = new Set<number>()
  let b = -1
  let first = 0
  const flush = (end: number) => {
    if (b < 0) return
    let mn = first
    let mx = first
    for (let i = first; i < end; i++) {
      if ((pts[i].value ?? 0) < (pts[mn].value ?? 0)) mn = i
      if ((pts[i].value ?? 0) > (pts[mx].value ?? 0)) mx = i
    }
    for (const i of [first, end - 1, mn, mx]) keep.add(i)
  }
  pts.forEach((p, i) => {
    const k = Math.min(buckets - 1, Math.floor((p.step - lo) / width))
    if (k !== b) {
      flush(i)
      b = k
      first = i
    }
  })
  flush(pts.length)
  return [...keep].sort((x, y) => x - y).map((i) => pts[i])
}

/** A fake `scalar/metadata` window endpoint over `series` (key -> points), with the server's bounds. */
function fakeServer(series: Record<string, ScalarPoint[]>, windowMax: number, exact = true) {
  const calls: { key: string; start: number | null; end: number | null; points: number }[] = []
  const fetch: WindowFetch = async (key, start, end, points) => {
    if (points < MIN_POINTS || points > windowMax) throw new Error(`'points' should in [4, ${windowMax}]`)
    calls.push({ key, start, end, points })
    const inside = (series[key] ?? []).filter((p) => (start === null || p.step >= start) && (end === null || p.step <= end))
    const answer: WindowAnswer = { points: inside.length <= points ? inside : m4(inside, points), total: inside.length, exact }
    return answer
  }
  return { fetch, calls }
}

function makeSeries(steps: number[], spikeAt = -1): ScalarPoint[] {
  return steps.map((s) => ({ step: s, wall_time: 1000 + s / 10, value: s === spikeAt ? 99 : Math.sin(s / 50) }))
}

const signal = new AbortController().signal

describe('fetchAllPoints: every real point of a window through windows of at most windowMax points', () => {
  it('fetches a small series in one window', async () => {
    const data = makeSeries([1, 2, 3, 5, 8, 13])
    const srv = fakeServer({ a: data }, 100)
    const got = await fetchAllPoints(srv.fetch, 'a', null, null, 1000, signal, { windowMax: 100 })
    expect(got).toEqual({ key: 'a', points: data, total: 6, complete: true, exact: true })
    expect(srv.calls.map((c) => c.points)).toEqual([MIN_POINTS, 100])
  })

  it('splits a large series until each part fits, returning every point in order', async () => {
    // uneven density: a dense block, a gap, a sparse tail, and a spike the M4 probes would also show
    const steps = [...Array.from({ length: 700 }, (_, i) => i + 1), ...Array.from({ length: 300 }, (_, i) => 5000 + 7 * i)]
    const data = makeSeries(steps, 333)
    const srv = fakeServer({ a: data }, 100)
    const got = await fetchAllPoints(srv.fetch, 'a', null, null, 10_000, signal, { windowMax: 100 })
    expect(got.points).toEqual(data)
    expect(got.complete).toBe(true)
    expect(got.total).toBe(1000)
    expect(Math.max(...srv.calls.map((c) => c.points))).toBeLessThanOrEqual(100)
    // each full fetch asked for a window the server answered without reduction
    for (const c of srv.calls.filter((x) => x.points === 100)) {
      const n = data.filter((p) => p.step >= (c.start ?? -Infinity) && p.step <= (c.end ?? Infinity)).length
      expect(n).toBeLessThanOrEqual(100)
    }
  })

  it('keeps to the asked step window', async () => {
    const data = makeSeries(Array.from({ length: 2000 }, (_, i) => i * 3))
    const srv = fakeServer({ a: data }, 64)
    const got = await fetchAllPoints(srv.fetch, 'a', 301, 1200, 10_000, signal, { windowMax: 64 })
    expect(got.points).toEqual(data.filter((p) => p.step >= 301 && p.step <= 1200))
    expect(got.complete).toBe(true)
  })

  it('returns an empty, complete line for an empty window', async () => {
    const srv = fakeServer({ a: makeSeries([1, 2, 3]) }, 100)
    expect(await fetchAllPoints(srv.fetch, 'a', 10, 20, 1000, signal, { windowMax: 100 })).toEqual({ key: 'a', points: [], total: 0, complete: true, exact: true })
  })

  it('exports a window over the row budget as the M4 reduction, flagged incomplete', async () => {
    const data = makeSeries(Array.from({ length: 1000 }, (_, i) => i + 1), 777)
    const srv = fakeServer({ a: data }, 100)
    const got = await fetchAllPoints(srv.fetch, 'a', null, null, 80, signal, { windowMax: 100 })
    expect(got.complete).toBe(false)
    expect(got.total).toBe(1000)
    expect(got.points.length).toBeLessThanOrEqual(80)
    expect(got.points).toContainEqual(data[776]) // the spike survives the reduction
  })

  it('flags a line the server answers from its sample', async () => {
    const data = makeSeries([1, 10, 20])
    const srv = fakeServer({ a: data }, 100, false)
    const got = await fetchAllPoints(srv.fetch, 'a', null, null, 1000, signal, { windowMax: 100 })
    expect(got).toMatchObject({ points: data, exact: false })
  })
})

describe('fetchExport and its summary', () => {
  it('shares the row limit between lines in order and names the reduced ones', async () => {
    const a = makeSeries(Array.from({ length: 300 }, (_, i) => i + 1))
    const b = makeSeries(Array.from({ length: 300 }, (_, i) => i + 1))
    const srv = fakeServer({ a, b }, 100)
    const lines = await fetchExport(srv.fetch, ['a', 'b'], null, null, signal, { windowMax: 100, maxRows: 400 })
    expect(lines[0]).toMatchObject({ key: 'a', complete: true, total: 300 })
    expect(lines[0].points).toEqual(a)
    expect(lines[1]).toMatchObject({ key: 'b', complete: false, total: 300 })
    expect(lines[1].points.length).toBeLessThanOrEqual(100)
    const s = summarizeExport(lines, (k) => `run ${k}`)
    expect(s).toEqual({ kind: 'reduced', rows: 300 + lines[1].points.length, lines: 2, reduced: ['run b'], sampled: [] })
  })

  it('keeps step order when the concurrent answers arrive in any order', async () => {
    const a = makeSeries(Array.from({ length: 900 }, (_, i) => 2 * i + 1), 401)
    const b = makeSeries(Array.from({ length: 500 }, (_, i) => i + 1))
    const srv = fakeServer({ a, b }, 64)
    let seed = 7
    const jittered: WindowFetch = async (...args) => {
      seed = (seed * 48271) % 2147483647
      await new Promise((r) => setTimeout(r, seed % 5))
      return srv.fetch(...args)
    }
    const lines = await fetchExport(jittered, ['a', 'b'], null, null, signal, { windowMax: 64 })
    expect(lines.map((l) => l.points)).toEqual([a, b])
    expect(lines.every((l) => l.complete)).toBe(true)
  })

  it('says "all" when every line is complete and exact', async () => {
    const srv = fakeServer({ a: makeSeries([1, 2]), b: makeSeries([3]) }, 100)
    const lines = await fetchExport(srv.fetch, ['a', 'b'], null, null, signal, { windowMax: 100 })
    expect(summarizeExport(lines)).toEqual({ kind: 'all', rows: 3, lines: 2, reduced: [], sampled: [] })
  })

  it('names the file after the window and what it holds', () => {
    expect(exportFileName('compare_loss', [100, 250], 'all', 'csv')).toBe('compare_loss_steps100-250_all.csv')
    expect(exportFileName('run_loss', null, 'reduced', 'json')).toBe('run_loss_reduced.json')
    expect(exportFileName('run_loss', null, 'sample', 'csv')).toBe('run_loss_sample.csv')
  })
})
