// Chrome-trace events -> lanes (one per process/thread) and bars, for the timeline chart.
import type { TraceEvent } from '@/api/profilerApi'

export interface Lane {
  key: string
  pid: string
  tid: string
  process: string
  thread: string
  pSort: number
  tSort: number
}

export interface Bar {
  /** µs relative to the first timed event */
  start: number
  end: number
  lane: number
  /** the bar's row inside its lane (stackRows): nested or overlapping events get rows below */
  row: number
  ev: TraceEvent
}

export class LaneBook {
  private processes = new Map<string, { name: string; sort: number }>()
  private threads = new Map<string, { name: string; sort: number }>()
  private seen = new Map<string, Lane>()
  lanes: Lane[] = []
  /** which processes get lanes (e.g. only the NPU ones of an Ascend trace); null = all */
  keep: ((process: string) => boolean) | null = null
  private index = new Map<string, number>()

  /** Adds metadata and the lanes of timed events; returns true when the lane list changed. */
  absorb(events: TraceEvent[]): boolean {
    let changed = false
    for (const e of events) {
      const pid = String(e.pid)
      const tid = String(e.tid ?? '')
      if (e.ph === 'M') {
        const args = e.args ?? {}
        if (e.name === 'process_name') this.proc(pid).name = String(args.name ?? pid)
        else if (e.name === 'process_sort_index') this.proc(pid).sort = Number(args.sort_index ?? 0)
        else if (e.name === 'thread_name') {
          this.thr(pid, tid).name = String(args.name ?? tid)
          changed = this.add(pid, tid) || changed
        } else if (e.name === 'thread_sort_index') this.thr(pid, tid).sort = Number(args.sort_index ?? 0)
        continue
      }
      if (e.ts === undefined) continue
      changed = this.add(pid, tid) || changed
    }
    if (changed || events.some((e) => e.ph === 'M')) this.rebuild()
    return changed
  }

  private proc(pid: string) {
    let p = this.processes.get(pid)
    if (!p) this.processes.set(pid, (p = { name: `Process ${pid}`, sort: Number.isFinite(Number(pid)) ? Number(pid) : 0 }))
    return p
  }

  private thr(pid: string, tid: string) {
    const k = `${pid}\u0000${tid}`
    let t = this.threads.get(k)
    if (!t) this.threads.set(k, (t = { name: `Thread ${tid}`, sort: Number.isFinite(Number(tid)) ? Number(tid) : 0 }))
    return t
  }

  private add(pid: string, tid: string): boolean {
    const k = `${pid}\u0000${tid}`
    if (this.seen.has(k)) return false
    this.seen.set(k, { key: k, pid, tid, process: '', thread: '', pSort: 0, tSort: 0 })
    return true
  }

  private rebuild(): void {
    for (const l of this.seen.values()) {
      const p = this.proc(l.pid)
      const t = this.thr(l.pid, l.tid)
      l.process = p.name
      l.thread = t.name
      l.pSort = p.sort
      l.tSort = t.sort
    }
    const keep = this.keep
    this.lanes = [...this.seen.values()].filter((l) => !keep || keep(l.process)).sort(
      (a, b) =>
        a.pSort - b.pSort ||
        Number(a.pid) - Number(b.pid) ||
        a.pid.localeCompare(b.pid) ||
        a.tSort - b.tSort ||
        Number(a.tid) - Number(b.tid) ||
        a.tid.localeCompare(b.tid),
    )
    this.index = new Map(this.lanes.map((l, i) => [l.key, i]))
  }

  laneOf(e: TraceEvent): number {
    return this.index.get(`${String(e.pid)}\u0000${String(e.tid ?? '')}`) ?? -1
  }

  label(l: Lane): string {
    return `${l.process} · ${l.thread}`
  }
}

export function toBars(events: TraceEvent[], book: LaneBook, t0: number): Bar[] {
  const out: Bar[] = []
  for (const e of events) {
    if (e.ph === 'M' || e.ts === undefined) continue
    const lane = book.laneOf(e)
    if (lane < 0) continue
    const start = e.ts - t0
    out.push({ start, end: start + (e.dur ?? 0), lane, row: 0, ev: e })
  }
  return out
}

/** Events touching within this many µs do not overlap (rounding of the trace's ns timestamps). */
export const TOUCH_US = 1e-6

/**
 * Stacks the bars of each lane into rows so that no two bars of a row overlap: by start (the longer first on a
 * tie), each bar takes the first row whose last bar has ended. A call nested in another lands below it (its parent
 * still holds the rows above), so the rows of a lane are its call depth; for intervals this first-fit uses the
 * fewest rows possible (the most events open at once). Sets `bar.row`; returns the rows of each lane (at least 1).
 */
export function stackRows(bars: Bar[], laneCount: number): number[] {
  const order = bars.map((_, i) => i).sort((a, b) => bars[a].start - bars[b].start || (bars[b].end - bars[b].start) - (bars[a].end - bars[a].start))
  const ends: number[][] = Array.from({ length: laneCount }, () => [])
  for (const i of order) {
    const b = bars[i]
    const rows = ends[b.lane]
    if (!rows) continue
    let r = rows.findIndex((end) => end <= b.start + TOUCH_US)
    if (r < 0) r = rows.push(b.end) - 1
    else rows[r] = b.end
    b.row = r
  }
  return ends.map((rows) => Math.max(1, rows.length))
}

/** A stable colour per event name. */
export function nameHash(name: string): number {
  let h = 2166136261
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i)
    h = Math.imul(h, 16777619)
  }
  return h >>> 0
}

/** Short label: the last path component of a full scope name. */
export function shortName(name: string): string {
  const i = name.lastIndexOf('/')
  return i >= 0 ? name.slice(i + 1) : name
}
