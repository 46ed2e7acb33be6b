// The one API client of the SPA. Every REST call the UI makes goes through here.
// Paths, parameters and shapes follow MindInsight 2.3.1 (shared/reference/mindinsight/API.md).
import type {
  AudioMeta,
  CustomScalarsResponse,
  EmbeddingData,
  EmbeddingInfo,
  HparamsResponse,
  HparamsSessionsResponse,
  MeshResponse,
  PluginsResponse,
  PrCurve,
  ScalarsGroupResponse,
  ScalarHeatmapResponse,
  TextCompareResponse,
  TextItem,
  TextLatestItem,
  CacheResult,
  DatasetGraphNode,
  GraphNode,
  HistogramsResponse,
  ImageMeta,
  Landscape,
  LandscapeInterval,
  LineageResponse,
  ScalarPoint,
  ScalarSeries,
  ScalarSummary,
  ScalarWindowInfo,
  TensorDetail,
  TensorsResponse,
  TrainJobsResponse,
  UiConfig,
} from './types'
import type {
  ConditionsResponse,
  DumpGraphNode,
  DumpsResponse,
  DumpTensorResponse,
  DumpWhere,
  ModelGraphResponse,
  ModelListResponse,
  ModelParametersResponse,
  ModelTextResponse,
  ParameterCompareResponse,
  TensorCompareResponse,
  TensorIo,
  TensorTableResponse,
  WatchpointCheckRequest,
  WatchpointCheckResponse,
} from './debuggerTypes'
import type { TagSearchQuery, TagSearchResponse } from './tagSearchTypes'
import { serverMessage } from '@/i18n'

export * from './types'
export * from './debuggerTypes'
export * from './tagSearchTypes'

/** Well-known error codes (API.md "Errors"). */
export const ERR = {
  UNKNOWN: '50540000',
  PARAM_VALUE: '50540002',
  TRAIN_JOB_NOT_EXIST: '50545005',
  LOADING: '50545007',
  SCALAR_NOT_EXIST: '5054500E',
  IMAGE_NOT_EXIST: '5054500D',
  TENSOR_NOT_IN_CACHE: '50545014',
  TENSOR_TOO_LARGE: '50545016',
  LANDSCAPE_NOT_EXIST: '50545017',
  /** TensorBoard kinds: no data of that kind for the tag */
  KIND_NOT_EXIST: '50545020',
  /** TensorBoard kinds: listed but cannot be served (e.g. a refused projector path) */
  KIND_NOT_SERVABLE: '50545021',
  // offline debugger and model files (docs/debugger.md)
  WINDOW_TOO_LARGE: '50545013',
  DUMP_NO_GRAPH: '5054B101',
  DUMP_NOT_FOUND: '5054B285',
  DUMP_TENSOR_UNREADABLE: '5054B286',
  MODEL_NOT_FOUND: '5054B300',
  MODEL_UNREADABLE: '5054B301',
} as const

export type ApiErrorKind = 'http' | 'network' | 'parse' | 'aborted'

export class ApiError extends Error {
  readonly kind: ApiErrorKind
  readonly status: number
  readonly code: string

  /** The server's `error_msg` as sent (English), or the client's own text for other kinds. */
  readonly serverText: string

  constructor(kind: ApiErrorKind, message: string, status = 0, code = '') {
    super(message)
    this.name = 'ApiError'
    this.kind = kind
    this.status = status
    this.code = code
    this.serverText = message
    // `message` in the UI language, read when shown (so it follows a language switch): a server error in
    // Chinese by its code, the server's detail kept (i18n/errors.*.ts); a code without a translation stays English.
    if (code) {
      Object.defineProperty(this, 'message', {
        get: () => serverMessage(code, message),
        configurable: true,
        enumerable: false,
      })
    }
  }

  get unreachable(): boolean {
    return this.kind === 'network' || this.status === 502 || this.status === 503 || this.status === 504
  }
}

export function isAbort(e: unknown): boolean {
  return (e instanceof ApiError && e.kind === 'aborted') || (e instanceof DOMException && e.name === 'AbortError')
}

type QueryValue = string | number | boolean | null | undefined | (string | number)[]
export type Query = Record<string, QueryValue>

/**
 * The API root, relative to the page: the app is served at `<prefix>/`, the API at
 * `<prefix>/v1/mindinsight/`, so a relative URL works with any --url-path-prefix.
 */
export function apiRoot(): string {
  return new URL('v1/mindinsight/', document.baseURI).toString()
}

export function buildUrl(path: string, query: Query = {}): string {
  const url = new URL(path, apiRoot())
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue
    if (Array.isArray(value)) {
      for (const v of value) url.searchParams.append(key, String(v))
    } else {
      url.searchParams.append(key, String(value))
    }
  }
  return url.toString()
}

export interface RequestOptions {
  signal?: AbortSignal
}

async function request<T>(
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  query: Query = {},
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  const init: RequestInit = { method, signal: opts.signal, headers: { Accept: 'application/json' } }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { ...init.headers, 'Content-Type': 'application/json' }
  }
  let response: Response
  try {
    response = await fetch(buildUrl(path, query), init)
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw new ApiError('aborted', 'aborted')
    throw new ApiError('network', 'Server unreachable')
  }
  const text = await response.text().catch(() => '')
  let data: unknown = undefined
  if (text) {
    try {
      data = JSON.parse(text)
    } catch {
      if (response.ok) throw new ApiError('parse', `Invalid JSON from ${path}`, response.status)
    }
  }
  if (!response.ok) {
    const err = data as { error_code?: string; error_msg?: string } | undefined
    throw new ApiError(
      'http',
      err?.error_msg || `${response.status} ${response.statusText}`,
      response.status,
      err?.error_code || '',
    )
  }
  return data as T
}

/** GET / POST of an endpoint for the API modules that live beside their page (e.g. msprobe*Api.ts). */
export function getJson<T>(path: string, query: Query = {}, o?: RequestOptions): Promise<T> {
  return request<T>('GET', path, query, undefined, o)
}
export function postJson<T>(path: string, body: unknown, query: Query = {}, o?: RequestOptions): Promise<T> {
  return request<T>('POST', path, query, body, o)
}

const DV = 'datavisual/'
const DBG = 'debugger/'
const MODELS = 'models/'

/** `train-jobs` query: MindInsight's `offset` (page index), `limit`, `train_id`, plus our `search`
 * (substring, before paging), `group` (one rank group, by rank), `collapse_groups` (one entry per group) and
 * `sort`/`order` (the whole listing ordered before paging). */
export interface TrainJobsQuery {
  offset?: number
  limit?: number
  train_id?: string
  search?: string
  group?: string
  collapse_groups?: boolean
  sort?: 'train_id' | 'create_time' | 'update_time'
  order?: 'asc' | 'desc'
  /** each cached run's item carries `data_version` (changes with its data) */
  data_version?: boolean
  /** each item's tag lists cut to their first `tag_limit` tags, with `tag_counts` (the full counts) */
  tag_limit?: number
}

// ---------------------------------------------------------------- train jobs & caching
export const api = {
  uiConfig: (o?: RequestOptions) => request<UiConfig>('GET', 'ui-config', {}, undefined, o),

  /** `offset` is a page index (MindInsight semantics), `limit` 1..999. */
  trainJobs: (q: TrainJobsQuery = {}, o?: RequestOptions) =>
    request<TrainJobsResponse>('GET', DV + 'train-jobs', { ...q }, undefined, o),

  cacheTrainJobs: (trainIds: string[], o?: RequestOptions) =>
    request<CacheResult>('POST', DV + 'train-job-caches', {}, { train_ids: trainIds }, o),

  /** `tagLimit` (mindinsight-clone): each list cut to its first `tagLimit` tags, with `tag_counts` */
  plugins: (trainId: string, manualUpdate = false, o?: RequestOptions, tagLimit?: number) =>
    request<PluginsResponse>(
      'GET',
      DV + 'plugins',
      { train_id: trainId, manual_update: manualUpdate ? 'true' : undefined, tag_limit: tagLimit },
      undefined,
      o,
    ),

  /** mindinsight-clone: one page of a run's tags of one plugin, searched and grouped by prefix on the server. */
  tags: (q: TagSearchQuery, o?: RequestOptions) => request<TagSearchResponse>('GET', DV + 'tags', { ...q }, undefined, o),

  // ---------------------------------------------------------------- scalars
  scalarMetadata: (trainId: string, tag: string, o?: RequestOptions) =>
    request<{ metadatas: ScalarPoint[] }>('GET', DV + 'scalar/metadata', { train_id: trainId, tag }, undefined, o),

  /** mindinsight-clone: the samples plus `summary` (all-values stats and a min/max envelope of <= N buckets). */
  scalarMetadataEnvelope: (trainId: string, tag: string, downsample: number, o?: RequestOptions) =>
    request<{ metadatas: ScalarPoint[]; summary?: ScalarSummary }>(
      'GET',
      DV + 'scalar/metadata',
      { train_id: trainId, tag, downsample },
      undefined,
      o,
    ),

  /** mindinsight-clone: the real points of a step window, at most `points` (every step, or per bucket the
   * first/last/min/max real points); `window.exact` is false when the server answers from its sample. */
  scalarWindow: (trainId: string, tag: string, startStep: number | null, endStep: number | null, points: number, o?: RequestOptions) =>
    request<{ metadatas: ScalarPoint[]; window?: ScalarWindowInfo }>(
      'GET',
      DV + 'scalar/metadata',
      { train_id: trainId, tag, start_step: startStep, end_step: endStep, points },
      undefined,
      o,
    ),

  /** Comparison: cartesian product of train ids x tags; missing pairs are skipped by the server. */
  scalars: (trainIds: string[], tags: string[], o?: RequestOptions) =>
    request<{ scalars: ScalarSeries[] }>('GET', DV + 'scalars', { train_id: trainIds, tag: tags }, undefined, o),

  /** mindinsight-clone: the tags matching `tagRegex` (at most 256) x `width` step columns, each the
   * largest |value| of its steps (scalars/heatmap, docs/scalar-aggregate.md). */
  scalarHeatmap: (trainId: string, tagRegex: string, width: number, o?: RequestOptions) =>
    request<ScalarHeatmapResponse>('GET', DV + 'scalars/heatmap', { train_id: trainId, tag_regex: tagRegex, width }, undefined, o),

  // ---------------------------------------------------------------- images
  imageMetadata: (trainId: string, tag: string, o?: RequestOptions) =>
    request<{ metadatas: ImageMeta[] }>('GET', DV + 'image/metadata', { train_id: trainId, tag }, undefined, o),

  /** URL of the image bytes, for an <img src>. `wt` is a cache-buster the server ignores. */
  singleImageUrl: (trainId: string, tag: string, step: number, wallTime?: number) =>
    buildUrl(DV + 'image/single-image', { train_id: trainId, tag, step, wt: wallTime }),

  // ---------------------------------------------------------------- histograms
  histograms: (trainId: string, tag: string, o?: RequestOptions) =>
    request<HistogramsResponse>('GET', DV + 'histograms', { train_id: trainId, tag }, undefined, o),

  // ---------------------------------------------------------------- tensors
  tensors: (
    q: { train_id: string; tag: string; detail?: TensorDetail; step?: number; dims?: string },
    o?: RequestOptions,
  ) => request<TensorsResponse>('GET', DV + 'tensors', q, undefined, o),

  // ---------------------------------------------------------------- graphs
  graphNodes: (q: { train_id: string; tag?: string; mode?: 'normal' | 'optimize'; name?: string }, o?: RequestOptions) =>
    request<{ nodes: GraphNode[] }>('GET', DV + 'graphs/nodes', q, undefined, o),

  graphNodeNames: (
    q: { train_id: string; tag?: string; mode?: 'normal' | 'optimize'; search: string; offset?: number; limit?: number },
    o?: RequestOptions,
  ) => request<{ nodes: GraphNode[] }>('GET', DV + 'graphs/nodes/names', q, undefined, o),

  graphSingleNode: (q: { train_id: string; tag?: string; mode?: 'normal' | 'optimize'; name: string }, o?: RequestOptions) =>
    request<{ nodes: GraphNode[]; scope_name: string; children: unknown }>(
      'GET',
      DV + 'graphs/single-node',
      q,
      undefined,
      o,
    ),

  /** Our extension (docs/graph.md): one page of a scope's children; `offset` is a page index. */
  graphNodesPage: (
    q: { train_id: string; tag?: string; mode?: 'normal' | 'optimize'; name?: string; limit: number; offset: number },
    o?: RequestOptions,
  ) => request<{ nodes: GraphNode[]; total?: number }>('GET', DV + 'graphs/nodes', q, undefined, o),

  // ---------------------------------------------------------------- loss landscape
  landscapeIntervals: (trainId: string, o?: RequestOptions) =>
    request<{ intervals: LandscapeInterval[] }>('GET', DV + 'landscape/intervals', { train_id: trainId }, undefined, o),

  landscapes: (
    q: { train_id: string[]; type?: 'interval' | 'final'; interval_id?: string },
    o?: RequestOptions,
  ) => request<{ landscapes: Landscape[] }>('GET', DV + 'landscape/landscapes', q, undefined, o),

  // ---------------------------------------------------------------- dataset graph & lineage
  datasetGraph: (trainId: string, o?: RequestOptions) =>
    request<{ dataset_graph?: DatasetGraphNode; summary_dir?: string }>(
      'GET',
      'datasets/dataset_graph',
      { train_id: trainId },
      undefined,
      o,
    ),

  lineages: (condition: Record<string, unknown> = {}, o?: RequestOptions) =>
    request<LineageResponse>('POST', 'lineagemgr/lineages', {}, condition, o),

  updateLineage: (trainId: string, body: { tag?: number; remark?: string }, o?: RequestOptions) =>
    request<{ status: string }>('PUT', 'lineagemgr/lineages', { train_id: trainId }, body, o),

  optimizerTargets: (condition: Record<string, unknown> = {}, o?: RequestOptions) =>
    request<Record<string, unknown>>('POST', 'optimizer/targets/search', {}, condition, o),

  // ---------------------------------------------------------------- TensorBoard kinds (docs/api.md, "TensorBoard kinds")
  text: (trainId: string, tag: string, o?: RequestOptions) =>
    request<{ texts: TextItem[] }>('GET', DV + 'text', { train_id: trainId, tag }, undefined, o),

  /** The newest text of every text tag of a run (one request for the Text page). */
  textLatest: (trainId: string, o?: RequestOptions) =>
    request<{ texts: TextLatestItem[] }>('GET', DV + 'text/latest', { train_id: trainId }, undefined, o),

  /** Config diff: each run's newest texts compared key by key (runs must be in the detail cache). */
  textCompare: (trainIds: string[], o?: RequestOptions) =>
    request<TextCompareResponse>('POST', DV + 'text/compare', {}, { train_ids: trainIds }, o),

  prCurves: (trainId: string, tag: string, o?: RequestOptions) =>
    request<{ curves: PrCurve[] }>('GET', DV + 'pr-curves', { train_id: trainId, tag }, undefined, o),

  hparams: (trainId: string, o?: RequestOptions) =>
    request<HparamsResponse>('GET', DV + 'hparams', { train_id: trainId }, undefined, o),

  /** Every hparams session of every listed run, also as lineage objects, with their importance. */
  hparamsSessions: (o?: RequestOptions) =>
    request<HparamsSessionsResponse>('GET', DV + 'hparams/sessions', {}, undefined, o),

  audioMetadata: (trainId: string, tag: string, o?: RequestOptions) =>
    request<{ metadatas: AudioMeta[] }>('GET', DV + 'audio/metadata', { train_id: trainId, tag }, undefined, o),

  /** URL of a clip's bytes, for an <audio src>. `wt` is a cache-buster the server ignores. */
  singleAudioUrl: (trainId: string, tag: string, step: number, wallTime?: number) =>
    buildUrl(DV + 'audio/single-audio', { train_id: trainId, tag, step, wt: wallTime }),

  embeddings: (trainId: string, o?: RequestOptions) =>
    request<{ embeddings: EmbeddingInfo[] }>('GET', DV + 'embeddings', { train_id: trainId }, undefined, o),

  embedding: (trainId: string, tag: string, o?: RequestOptions) =>
    request<EmbeddingData>('GET', DV + 'embedding', { train_id: trainId, tag }, undefined, o),

  embeddingSpriteUrl: (trainId: string, tag: string) => buildUrl(DV + 'embedding/sprite', { train_id: trainId, tag }),

  scalarsGroup: (trainId: string, tag: string, o?: RequestOptions) =>
    request<ScalarsGroupResponse>('GET', DV + 'scalars-group', { train_id: trainId, tag }, undefined, o),

  customScalars: (trainId: string, o?: RequestOptions) =>
    request<CustomScalarsResponse>('GET', DV + 'custom-scalars', { train_id: trainId }, undefined, o),

  meshes: (trainId: string, tag: string, o?: RequestOptions) =>
    request<MeshResponse>('GET', DV + 'meshes', { train_id: trainId, tag }, undefined, o),
  // ---------------------------------------------------------------- offline debugger (docs/debugger.md)
  dumps: (o?: RequestOptions) => request<DumpsResponse>('GET', DBG + 'dumps', {}, undefined, o),

  /** An iteration's tensor table, in execution order; `node_name` gives one graph node's tensors. */
  dumpTensors: (
    q: DumpWhere & { iteration: number; offset?: number; limit?: number; search?: string; node_name?: string; io?: TensorIo },
    o?: RequestOptions,
  ) => request<TensorTableResponse>('GET', DBG + 'tensors', { ...q }, undefined, o),

  /** One tensor: a window of values (`shape` as datavisual's `dims`), its histogram or its statistics. */
  dumpTensor: (
    q: DumpWhere & { iteration: number; op_name: string; io: TensorIo; slot: number; shape?: string; detail?: 'data' | 'histogram' | 'stats' },
    o?: RequestOptions,
  ) => request<DumpTensorResponse>('GET', DBG + 'tensor', { ...q }, undefined, o),

  /** The same tensor in two iterations: the window of the difference and its statistics. */
  dumpTensorCompare: (
    q: DumpWhere & { iteration: number; other_iteration: number; op_name: string; io: TensorIo; slot: number; shape?: string },
    o?: RequestOptions,
  ) => request<TensorCompareResponse>('GET', DBG + 'tensor/compare', { ...q }, undefined, o),

  watchConditions: (o?: RequestOptions) => request<ConditionsResponse>('GET', DBG + 'watchpoints/conditions', {}, undefined, o),

  checkWatchpoints: (body: WatchpointCheckRequest, o?: RequestOptions) =>
    request<WatchpointCheckResponse>('POST', DBG + 'watchpoints/check', {}, body, o),

  /** The graph views over a dump's graph; with `iteration`, nodes carry their dumped tensors. */
  dumpGraphNodes: (q: DumpWhere & { name?: string; iteration?: number; limit?: number; offset?: number }, o?: RequestOptions) =>
    request<{ nodes: DumpGraphNode[]; total?: number }>('GET', DBG + 'graph/nodes', { ...q }, undefined, o),

  dumpGraphNodeNames: (q: DumpWhere & { search: string; offset?: number; limit?: number }, o?: RequestOptions) =>
    request<{ nodes: GraphNode[] }>('GET', DBG + 'graph/nodes/names', { ...q }, undefined, o),

  /** By `name`, or by `full_name` (a tensor row's node_name): the answer's `name` is the node's name in the tree. */
  dumpGraphSingleNode: (q: DumpWhere & { name?: string; full_name?: string; iteration?: number }, o?: RequestOptions) =>
    request<{ nodes: DumpGraphNode[]; scope_name: string; children: unknown; name?: string }>(
      'GET',
      DBG + 'graph/single-node',
      { ...q },
      undefined,
      o,
    ),

  // ---------------------------------------------------------------- model files (docs/debugger.md)
  models: (o?: RequestOptions) => request<ModelListResponse>('GET', MODELS + 'list', {}, undefined, o),

  modelGraph: (modelId: string, o?: RequestOptions) =>
    request<ModelGraphResponse>('GET', MODELS + 'graph', { model_id: modelId }, undefined, o),

  modelGraphNodes: (q: { model_id: string; name?: string; limit?: number; offset?: number }, o?: RequestOptions) =>
    request<{ nodes: GraphNode[]; total?: number }>('GET', MODELS + 'graph/nodes', { ...q }, undefined, o),

  modelGraphNodeNames: (q: { model_id: string; search: string; offset?: number; limit?: number }, o?: RequestOptions) =>
    request<{ nodes: GraphNode[] }>('GET', MODELS + 'graph/nodes/names', { ...q }, undefined, o),

  modelGraphSingleNode: (q: { model_id: string; name: string }, o?: RequestOptions) =>
    request<{ nodes: GraphNode[]; scope_name: string; children: unknown }>('GET', MODELS + 'graph/single-node', { ...q }, undefined, o),

  modelParameters: (modelId: string, o?: RequestOptions) =>
    request<ModelParametersResponse>('GET', MODELS + 'parameters', { model_id: modelId }, undefined, o),

  modelParametersCompare: (modelId: string, otherModelId: string, o?: RequestOptions) =>
    request<ParameterCompareResponse>('GET', MODELS + 'parameters/compare', { model_id: modelId, other_model_id: otherModelId }, undefined, o),

  modelText: (modelId: string, offset = 0, o?: RequestOptions) =>
    request<ModelTextResponse>('GET', MODELS + 'text', { model_id: modelId, offset }, undefined, o),

  // ---------------------------------------------------------------- profiler (generic; the profiler pages add typed helpers)
  profilerGet: <T = unknown>(path: string, q: Query, o?: RequestOptions) =>
    request<T>('GET', 'profile/' + path, q, undefined, o),
  profilerPost: <T = unknown>(path: string, q: Query, body: unknown, o?: RequestOptions) =>
    request<T>('POST', 'profile/' + path, q, body, o),
}

export type Api = typeof api
