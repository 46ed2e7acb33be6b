import { describe, expect, it } from 'vitest'
import { LaneBook, stackRows, toBars } from './timelineModel'
import { isNpuProcess } from './ascendModel'
import type { TraceEvent } from '@/api/profilerApi'

const events: TraceEvent[] = [
  { name: 'process_name', ph: 'M', pid: 1, tid: 0, args: { name: 'Python' } },
  { name: 'process_name', ph: 'M', pid: 2, tid: 0, args: { name: 'Ascend Hardware' } },
  { name: 'thread_name', ph: 'M', pid: 2, tid: 5, args: { name: 'Stream 5' } },
  { name: 'process_name', ph: 'M', pid: 3, tid: 0, args: { name: 'HCCL' } },
  { name: 'py', ph: 'X', pid: 1, tid: 9, ts: 100, dur: 5 },
  { name: 'MatMul', ph: 'X', pid: 2, tid: 5, ts: 110, dur: 3 },
  { name: 'hcom_allReduce', ph: 'X', pid: 3, tid: 1, ts: 120, dur: 7 },
]

describe('timeline lanes', () => {
  it('gives every thread a lane by default', () => {
    const book = new LaneBook()
    book.absorb(events)
    expect(book.lanes.map((l) => book.label(l))).toEqual(['Python · Thread 9', 'Ascend Hardware · Stream 5', 'HCCL · Thread 1'])
    expect(toBars(events, book, 100)).toHaveLength(3)
  })

  it('keeps only the NPU processes when filtered, and drops the other bars', () => {
    const book = new LaneBook()
    book.keep = isNpuProcess
    book.absorb(events)
    expect(book.lanes.map((l) => l.process)).toEqual(['Ascend Hardware', 'HCCL'])
    const bars = toBars(events, book, 100)
    expect(bars.map((b) => [b.ev.name, b.lane, b.start, b.end])).toEqual([
      ['MatMul', 0, 10, 13],
      ['hcom_allReduce', 1, 20, 27],
    ])
  })
})

describe('stacking by depth', () => {
  const x = (name: string, ts: number, dur: number, tid = 9): TraceEvent => ({ name, ph: 'X', pid: 1, tid, ts, dur })
  it('puts nested calls below their parent and siblings side by side', () => {
    const nested = [
      { name: 'process_name', ph: 'M', pid: 1, tid: 0, args: { name: 'Python' } },
      x('step', 0, 100),
      x('forward', 10, 40),
      x('matmul', 12, 5),
      x('add', 20, 5),
      x('backward', 50, 40), // starts where forward ends: same row
      x('grad', 55, 10),
      x('other thread', 0, 100, 10),
    ] as TraceEvent[]
    const book = new LaneBook()
    book.absorb(nested)
    const bars = toBars(nested, book, 0)
    const rows = stackRows(bars, book.lanes.length)
    const row = Object.fromEntries(bars.map((b) => [b.ev.name, b.row]))
    expect(row).toEqual({ step: 0, forward: 1, matmul: 2, add: 2, backward: 1, grad: 2, 'other thread': 0 })
    expect(rows).toEqual([3, 1])
  })
  it('never lets two bars of a row overlap, with the fewest rows', () => {
    const spans: [number, number][] = [[0, 10], [5, 15], [8, 9], [10, 20], [12, 13], [14, 30], [16, 17]]
    const evs = spans.map(([s, e], i) => x(`e${i}`, s, e - s))
    const book = new LaneBook()
    book.absorb(evs)
    const bars = toBars(evs, book, 0)
    const [rows] = stackRows(bars, 1)
    for (const a of bars) for (const b of bars) {
      if (a !== b && a.row === b.row) expect(a.end <= b.start || b.end <= a.start).toBe(true)
    }
    // the most spans open at once: 3 (at 8: [0,10], [5,15], [8,9])
    expect(rows).toBe(3)
  })
})
