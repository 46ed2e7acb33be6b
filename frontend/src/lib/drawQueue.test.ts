import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { afterDraws, cancelDraw, queueDraw } from './drawQueue'

function busy(ms: number): void {
  const end = performance.now() + ms
  while (performance.now() < end) {
    // a chart's draw
  }
}

describe('drawQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout'] })
    vi.stubGlobal('requestAnimationFrame', (cb: (t: number) => void) => setTimeout(() => cb(performance.now()), 16))
  })
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  it('draws after the queuing task, one slow chart per paint, a draw queued again replacing the old one', () => {
    const drawn: string[] = []
    const owners = [{}, {}, {}]
    owners.forEach((o, i) => queueDraw(o, null, () => (drawn.push(`old ${i}`), busy(10))))
    queueDraw(owners[0], null, () => (drawn.push('chart 0'), busy(10)))
    expect(drawn).toEqual([]) // not inside the task that queued (the batch's other charts queue first)
    vi.advanceTimersByTime(0)
    expect(drawn).toEqual(['chart 0']) // then a paint before the next
    vi.advanceTimersByTime(20)
    expect(drawn).toEqual(['chart 0', 'old 1'])
    vi.advanceTimersByTime(20)
    expect(drawn).toEqual(['chart 0', 'old 1', 'old 2'])
  })

  it('draws quick charts together and forgets a cancelled one', () => {
    const drawn: number[] = []
    const owners = [{}, {}, {}]
    owners.forEach((o, i) => queueDraw(o, null, () => drawn.push(i)))
    cancelDraw(owners[1])
    afterDraws(() => drawn.push(-1)) // waits for the queued draws
    vi.advanceTimersByTime(0)
    expect(drawn).toEqual([0, 2, -1])
    afterDraws(() => drawn.push(-2)) // none queued: at once
    expect(drawn).toEqual([0, 2, -1, -2])
  })
})
