// Runs one custom-scalars pattern over the tags, off the page's thread (lib/safeRegex.ts: the page stops this
// worker when a pattern takes too long).
import { matchTags } from '@/lib/safeRegex'

self.onmessage = (e: MessageEvent<{ pattern: string; tags: string[] }>) => {
  self.postMessage(matchTags(e.data.pattern, e.data.tags))
}
