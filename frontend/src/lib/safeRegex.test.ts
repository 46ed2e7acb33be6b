import { describe, expect, it } from 'vitest'
import { compilePattern, matchGuarded, matchTags, MAX_PATTERN_LENGTH, toJsPattern, type MatchResult, type WorkerLike } from './safeRegex'

const TAGS = ['loss/train', 'loss/valid', 'accuracy/train', 'accuracy/valid', 'accuracy/valid_lower', 'my_loss/train']

describe('matchTags (re.match semantics)', () => {
  it('anchors at the start only, as Python re.match does', () => {
    expect(matchTags('loss/train', TAGS).tags).toEqual(['loss/train'])
    expect(matchTags('accuracy/.*', TAGS).tags).toEqual(['accuracy/train', 'accuracy/valid', 'accuracy/valid_lower'])
    expect(matchTags('accuracy/valid', TAGS).tags).toEqual(['accuracy/valid', 'accuracy/valid_lower']) // prefix match
    expect(matchTags('.*loss', TAGS).tags).toEqual(['loss/train', 'loss/valid', 'my_loss/train'])
    expect(matchTags('train', TAGS).tags).toEqual([])
  })

  it("takes Python's named groups", () => {
    expect(toJsPattern('(?P<k>loss)/(?P=k)')).toBe('(?<k>loss)/\\k<k>')
    expect(matchTags('(?P<split>train|valid)', ['train/x', 'test/x']).tags).toEqual(['train/x'])
  })

  it('refuses invalid and overlong patterns with a reason', () => {
    expect(matchTags('loss/(', TAGS)).toMatchObject({ tags: [], error: 'invalid' })
    expect(matchTags('a'.repeat(MAX_PATTERN_LENGTH + 1), TAGS)).toMatchObject({ tags: [], error: 'too_long' })
    expect(compilePattern('x')).toBeInstanceOf(RegExp)
  })
})

/** A stand-in worker: answers with matchTags after a tick, or never for patterns it is told to hang on. */
class FakeWorker implements WorkerLike {
  onmessage: ((event: { data: MatchResult }) => void) | null = null
  terminated = false
  constructor(private hang: (pattern: string) => boolean) {}
  postMessage(m: { pattern: string; tags: string[] }): void {
    if (this.hang(m.pattern)) return
    setTimeout(() => !this.terminated && this.onmessage?.({ data: matchTags(m.pattern, m.tags) }), 1)
  }
  terminate(): void {
    this.terminated = true
  }
}

describe('matchGuarded', () => {
  it('stops a pattern that takes too long and still matches the others', async () => {
    const spawned: FakeWorker[] = []
    const spawn = () => {
      const w = new FakeWorker((p) => p === '(a+)+$')
      spawned.push(w)
      return w
    }
    const res = await matchGuarded(['loss/.*', '(a+)+$', 'accuracy/train', 'bad('], TAGS, spawn, 50)
    expect(res.map((r) => [r.pattern, r.tags, r.error])).toEqual([
      ['loss/.*', ['loss/train', 'loss/valid'], undefined],
      ['(a+)+$', [], 'timeout'],
      ['accuracy/train', ['accuracy/train'], undefined],
      ['bad(', [], 'invalid'],
    ])
    expect(spawned).toHaveLength(2) // the stuck worker was replaced
    expect(spawned.every((w) => w.terminated)).toBe(true)
  })
})
