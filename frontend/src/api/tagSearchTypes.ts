// `GET datavisual/tags` (issue 32; docs/api.md "Tag search and the tag limit"): one run's tags of one plugin,
// searched (substring `q` or case-insensitive `regex`), paged and grouped by prefix on the server.

export interface TagSearchQuery {
  train_id: string
  plugin: string
  /** substring, case-insensitive */
  q?: string
  /** regular expression, case-insensitive; one that does not compile or runs too long is matched as text */
  regex?: string
  /** only tags under it (`expert_load/`) */
  prefix?: string
  /** 'prefix': the answer has `groups` one level below `prefix` */
  group?: 'prefix'
  offset?: number
  /** 1..10,000 */
  limit?: number
}

export interface TagGroup {
  prefix: string
  count: number
}

export interface TagSearchResponse {
  train_id: string
  plugin: string
  /** tags kept for the run */
  total: number
  /** tags matching the search and prefix */
  matched: number
  offset: number
  limit: number
  /** the page, in `plugins` order */
  tags: string[]
  invalid?: boolean
  slow?: boolean
  prefix?: string
  groups?: TagGroup[]
  dropped_tags?: number
}
