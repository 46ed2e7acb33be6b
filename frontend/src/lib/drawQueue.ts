// First draws of charts whose data arrive together (a page of 12 scalar charts answered in the same few ms) are
// made one after another, in page order, with a paint between them, instead of all in one task: the first chart
// is on screen after its own draw (~10-30 ms of ECharts work, more for the page's very first chart), not after
// every chart's (issue 32: the first chart of a run). Later draws of a chart (smoothing, zoom, theme) stay
// immediate: only the first one waits here.

interface Draw {
  el: HTMLElement | null
  run: () => void
}

/** Time drawn per task before yielding to a paint; the first chart of a batch always gets a paint of its own. */
const BUDGET_MS = 8

const queue = new Map<object, Draw>()
let scheduled = false
let waiting: (() => void)[] = []

/** Queues `owner`'s draw (replacing one it queued before); `el` orders the queue (page order). */
export function queueDraw(owner: object, el: HTMLElement | null, run: () => void): void {
  queue.set(owner, { el, run })
  if (!scheduled) {
    scheduled = true
    setTimeout(pump, 0) // after the task that queued it (the other charts of the batch queue meanwhile)
  }
}

export function cancelDraw(owner: object): void {
  queue.delete(owner)
}

/** Runs `fn` once every queued draw is made (at once when none is queued). */
export function afterDraws(fn: () => void): void {
  if (!scheduled) fn()
  else waiting.push(fn)
}

function before(a: Draw, b: Draw): number {
  if (!a.el || !b.el || a.el === b.el) return 0
  return a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1
}

function pump(): void {
  const start = performance.now()
  const order = [...queue.entries()].sort(([, a], [, b]) => before(a, b))
  for (const [owner, draw] of order) {
    queue.delete(owner)
    try {
      draw.run()
    } catch (e) {
      console.error(e)
    }
    if (performance.now() - start > BUDGET_MS) break
  }
  if (queue.size) {
    requestAnimationFrame(() => setTimeout(pump, 0)) // right after the next paint
    return
  }
  scheduled = false
  const run = waiting
  waiting = []
  for (const fn of run) fn()
}
