// Runs one user pattern (a custom-scalars line, a tag filter) over the tags, off the page's thread
// (lib/safeRegex.ts: the page stops this worker when a pattern takes too long).
import { matchTags, type MatchRequest } from '@/lib/safeRegex'

self.onmessage = (e: MessageEvent<MatchRequest>) => {
  self.postMessage(matchTags(e.data.pattern, e.data.tags, e.data.mode))
}
