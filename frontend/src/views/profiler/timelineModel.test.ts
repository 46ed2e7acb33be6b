import { describe, expect, it } from 'vitest'
import { LaneBook, toBars } from './timelineModel'
import { isNpuProcess } from './ascendModel'
import type { TraceEvent } from './profilerApi'

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
