// User regular expressions, run off the page's thread with a time limit. Custom scalars: a multiline chart names its
// lines by regular expressions over the run's scalar tags (as TensorBoard does: Python's `re.match`, anchored at
// the start only). Tag filters: the filter box and `?filter=` of every run page and of the comparison page, a
// case-insensitive search (`mode: 'search'`). The patterns come from a file or a link, and the tags from files, so
// both are attacker input: a pattern such as `(a+)+$` takes exponential time in a backtracking engine. They are
// therefore (1) bounded in length and (2) run in a Web Worker one at a time with a time limit: a pattern that
// takes longer is stopped (the worker is terminated) and reported, and the other charts are still drawn.

export const MAX_PATTERN_LENGTH = 512
export const MATCH_TIMEOUT_MS = 1000

export type MatchError = 'too_long' | 'invalid' | 'timeout'
/** `match`: Python's `re.match` (custom scalars); `search`: anywhere in the tag, case-insensitive (tag filters). */
export type MatchMode = 'match' | 'search'

export interface MatchResult {
  pattern: string
  /** the matching tags, in the order given */
  tags: string[]
  error?: MatchError
  detail?: string
}

/** Python's named-group syntax, which JavaScript spells differently: `(?P<n>...)` and `(?P=n)`. */
export function toJsPattern(py: string): string {
  return py.replace(/\(\?P<([A-Za-z_]\w*)>/g, '(?<$1>').replace(/\(\?P=([A-Za-z_]\w*)\)/g, '\\k<$1>')
}

/** The pattern compiled for `mode` (`re.match`: anchored at the start), or why it cannot be used. */
export function compilePattern(pattern: string, mode: MatchMode = 'match'): RegExp | { error: MatchError; detail: string } {
  if (pattern.length > MAX_PATTERN_LENGTH) return { error: 'too_long', detail: `${pattern.length} > ${MAX_PATTERN_LENGTH}` }
  if (mode === 'search') {
    try {
      return new RegExp(pattern, 'i')
    } catch (e) {
      return { error: 'invalid', detail: e instanceof Error ? e.message : String(e) }
    }
  }
  try {
    return new RegExp(`^(?:${toJsPattern(pattern)})`, 'u')
  } catch (e) {
    try {
      return new RegExp(`^(?:${toJsPattern(pattern)})`) // patterns valid without the unicode flag
    } catch {
      return { error: 'invalid', detail: e instanceof Error ? e.message : String(e) }
    }
  }
}

/** Runs one pattern over the tags (unguarded: call it in the worker, or on trusted patterns). */
export function matchTags(pattern: string, tags: string[], mode: MatchMode = 'match'): MatchResult {
  const re = compilePattern(pattern, mode)
  if (!(re instanceof RegExp)) return { pattern, tags: [], ...re }
  return { pattern, tags: tags.filter((tag) => re.test(tag)) }
}

/** What the page asks the worker. */
export interface MatchRequest {
  pattern: string
  tags: string[]
  mode?: MatchMode
}

/** What the guard needs of a worker (a Web Worker, or a stand-in in tests). */
export interface WorkerLike {
  postMessage(message: MatchRequest): void
  onmessage: ((event: { data: MatchResult }) => void) | null
  onerror?: ((event: unknown) => void) | null
  terminate(): void
}

function once(worker: WorkerLike, request: MatchRequest, timeoutMs: number): Promise<MatchResult | null> {
  const { pattern } = request
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs)
    worker.onmessage = (e) => {
      clearTimeout(timer)
      resolve(e.data)
    }
    worker.onerror = () => {
      clearTimeout(timer)
      resolve({ pattern, tags: [], error: 'invalid', detail: 'worker error' })
    }
    worker.postMessage(request)
  })
}

/**
 * Matches every pattern against `tags`, each in a worker with a time limit. A pattern over the limit is
 * reported as `timeout` and its worker replaced; the others are matched as usual.
 */
export async function matchGuarded(
  patterns: string[],
  tags: string[],
  spawn: () => WorkerLike,
  timeoutMs = MATCH_TIMEOUT_MS,
  mode: MatchMode = 'match',
): Promise<MatchResult[]> {
  const out: MatchResult[] = []
  let worker: WorkerLike | null = null
  try {
    for (const pattern of patterns) {
      const pre = compilePattern(pattern, mode)
      if (!(pre instanceof RegExp)) {
        out.push({ pattern, tags: [], ...pre })
        continue
      }
      worker ??= spawn()
      const res: MatchResult | null = await once(worker, { pattern, tags, mode }, timeoutMs)
      if (res) {
        out.push(res)
        continue
      }
      worker.terminate()
      worker = null
      out.push({ pattern, tags: [], error: 'timeout', detail: `${timeoutMs} ms` })
    }
  } finally {
    worker?.terminate()
  }
  return out
}

/** The app's worker (a separate chunk, same origin: allowed by the page's script-src 'self'). */
export function spawnRegexWorker(): WorkerLike {
  return new Worker(new URL('../workers/regex.worker.ts', import.meta.url), { type: 'module' }) as unknown as WorkerLike
}
